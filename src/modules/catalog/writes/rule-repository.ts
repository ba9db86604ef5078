import { sql } from 'kysely';
import type { RuleRow } from '../repository.ts';
import type { CatalogDb } from '../tables.ts';
import type { RuleKind } from './inputs.ts';

// Rules. Ends are stored customisation ids; whole-tree writes name them by CustomisationRef and resolve
// the refs against the stored tree once the tree is written (upsert-plan.ts resolveRules).

export interface StoredRule {
  id: string;
  product_id: string;
  kind: RuleKind;
  customisation_id: string;
  other_customisation_id: string;
  message: string | null;
}
export interface NewRule {
  productId: string;
  kind: RuleKind;
  customisationId: string;
  otherCustomisationId: string;
  message: string | null;
}

const ruleRowColumns = sql`id::text AS id, product_id::text AS product_id, kind, customisation_id::text AS "customisationId",
  other_customisation_id::text AS "otherCustomisationId", message`;

/** The rules of some products, by product then id: the order of Product.rules and of the export. */
export async function findRules(db: CatalogDb, productIds: readonly string[]): Promise<StoredRule[]> {
  // Qualified: a bare `id` would be the text column of the select list, and 10 would sort before 9.
  const { rows } = await sql<StoredRule>`
    SELECT id::text AS id, product_id::text AS product_id, kind, customisation_id::text AS customisation_id,
      other_customisation_id::text AS other_customisation_id, message
    FROM configuration_rules WHERE product_id = ANY(${[...productIds]}::bigint[])
    ORDER BY configuration_rules.product_id, configuration_rules.id
  `.execute(db);
  return rows;
}

/** One INSERT, ids in input order. */
export async function insertRules(db: CatalogDb, rules: readonly NewRule[]): Promise<RuleRow[]> {
  if (rules.length === 0) return [];
  const { rows } = await sql<RuleRow>`
    INSERT INTO configuration_rules (product_id, kind, customisation_id, other_customisation_id, message)
    SELECT p, k, a, b, m FROM unnest(
      ${rules.map((r) => r.productId)}::bigint[], ${rules.map((r) => r.kind)}::text[],
      ${rules.map((r) => r.customisationId)}::bigint[], ${rules.map((r) => r.otherCustomisationId)}::bigint[],
      ${rules.map((r) => r.message)}::text[]
    ) WITH ORDINALITY AS t(p, k, a, b, m, i) ORDER BY i
    RETURNING ${ruleRowColumns}
  `.execute(db);
  return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/** A kept rule's ends (an EXCLUDES may be turned round) and message. */
export async function updateRules(
  db: CatalogDb,
  rules: readonly { id: string; customisationId: string; otherCustomisationId: string; message: string | null }[],
): Promise<void> {
  if (rules.length === 0) return;
  await sql`
    UPDATE configuration_rules r SET customisation_id = u.a, other_customisation_id = u.b, message = u.m
    FROM unnest(${rules.map((r) => r.id)}::bigint[], ${rules.map((r) => r.customisationId)}::bigint[],
      ${rules.map((r) => r.otherCustomisationId)}::bigint[], ${rules.map((r) => r.message)}::text[]) AS u(id, a, b, m)
    WHERE r.id = u.id
  `.execute(db);
}

export async function deleteRules(db: CatalogDb, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await sql`DELETE FROM configuration_rules WHERE id = ANY(${[...ids]}::bigint[])`.execute(db);
}

export async function deleteRuleRow(db: CatalogDb, id: string): Promise<RuleRow | undefined> {
  const { rows } = await sql<RuleRow>`
    DELETE FROM configuration_rules WHERE id = ${id}::bigint RETURNING ${ruleRowColumns}
  `.execute(db);
  return rows[0];
}
