import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import { executeAsPrepared } from '../../../platform/prepared.ts';
import type { CatalogDb } from '../tables.ts';
import type { KeysetPosition } from '../pagination.ts';
import { productColumns, type ProductPageRows, type ProductRow } from '../repository.ts';
import { SORT_TEXT_LENGTH, type OrderClause, type ProductQuery } from './query.ts';

// The page of a query with search, filter or another order. Each sort key is a column the order indexes
// hold (migration 0022 stores NAME's, SKU's and BASE_PRICE's), compared with leakproof operators only:
// under row-level security, a position written over lower(), left() or numeric would be a filter after a
// scan of the whole tenant instead of an index range.

interface SortKey {
  column: RawBuilder<unknown>;
  /** The column's value for a cursor's text value (no column inside: any function may compute it). */
  value: (text: string) => RawBuilder<unknown>;
  descending: boolean;
}

function keysOf(clause: OrderClause): SortKey[] {
  const { descending } = clause;
  switch (clause.column) {
    case 'NAME':
    case 'SKU': {
      // The first SORT_TEXT_LENGTH characters, lowercased under "C", then as they are: the stored keys.
      const column = clause.column === 'NAME' ? 'name' : 'sku';
      const length = sql.lit(SORT_TEXT_LENGTH);
      return [
        {
          column: sql.ref(`${column}_key`),
          value: (v) => sql`lower(left(${v}::text, ${length}) COLLATE "C")`,
          descending,
        },
        {
          column: sql.ref(`${column}_key_cased`),
          value: (v) => sql`(left(${v}::text, ${length}) COLLATE "C")`,
          descending,
        },
      ];
    }
    case 'BASE_PRICE':
      return [{ column: sql.ref('base_price_cents'), value: (v) => sql`(${v}::numeric * 100)::bigint`, descending }];
    case 'CREATED_AT':
      return [{ column: sql.ref('created_at'), value: (v) => sql`${v}::timestamptz`, descending }];
    case 'UPDATED_AT':
      return [{ column: sql.ref('updated_at'), value: (v) => sql`${v}::timestamptz`, descending }];
  }
}

/** The query's sort keys, ending on the id; and the cursor's value for each (a clause's keys share its value). */
function sortKeys(q: ProductQuery, after: KeysetPosition | null) {
  const clauses = q.order.map((clause, i) => ({ keys: keysOf(clause), text: after?.values[i] }));
  const id: SortKey = { column: sql.ref('products.id'), value: (v) => sql`${v}::bigint`, descending: q.idDescending };
  clauses.push({ keys: [id], text: after?.id });
  const keys = clauses.flatMap((c) => c.keys);
  if (after === null) return { keys, values: null };
  return { keys, values: clauses.flatMap((c) => c.keys.map((key) => key.value(c.text!))) };
}

const row = (parts: RawBuilder<unknown>[]) => sql`(${sql.join(parts)})`;

/**
 * Rows after the position in the keys' order. The longest leading run of keys in one direction is a
 * row comparison the index serves as a range; the rest of the lexicographic order is a filter on it.
 */
function afterPosition(keys: SortKey[], values: RawBuilder<unknown>[]): RawBuilder<boolean> {
  let run = 1;
  while (run < keys.length && keys[run]!.descending === keys[0]!.descending) run++;
  const op = (descending: boolean, strict: boolean) =>
    sql.raw(descending ? (strict ? '<' : '<=') : strict ? '>' : '>=');
  const lead = (strict: boolean) =>
    sql`${row(keys.slice(0, run).map((k) => k.column))} ${op(keys[0]!.descending, strict)} ${row(values.slice(0, run))}`;
  if (run === keys.length) return sql<boolean>`${lead(true)}`;
  const beyond = keys.map((key, i) => {
    const equal = keys.slice(0, i).map((k, j) => sql`${k.column} = ${values[j]!}`);
    return sql`(${sql.join([...equal, sql`${key.column} ${op(key.descending, true)} ${values[i]!}`], sql` AND `)})`;
  });
  return sql<boolean>`${lead(false)} AND (${sql.join(beyond, sql` OR `)})`;
}

/** `%`, `_` and `\` are plain characters in a search: escaped for LIKE's default escape character. */
const containsPattern = (search: string) => `%${search.replace(/[\\%_]/g, '\\$&')}%`;

function matches(q: ProductQuery): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = [];
  if (q.search !== null) {
    const pattern = containsPattern(q.search);
    conditions.push(sql<boolean>`(products.name ILIKE ${pattern} OR products.sku ILIKE ${pattern})`);
  }
  if (q.skus !== null) conditions.push(sql<boolean>`products.sku = ANY(${q.skus}::text[])`);
  if (q.updatedAfter !== null) {
    conditions.push(sql<boolean>`products.updated_at > ${q.updatedAfter.toISOString()}::timestamptz`);
  }
  return conditions;
}

const all = (conditions: RawBuilder<boolean>[]) =>
  conditions.length === 0 ? sql<boolean>`true` : sql<boolean>`${sql.join(conditions, sql` AND `)}`;

/**
 * `limit` is one more than the page size. With the counts, one statement: the page joined to the counts,
 * both from one snapshot, and ordered again outside by the keys the page also selects.
 */
export async function findProductQueryPage(
  db: CatalogDb,
  q: ProductQuery,
  { after, limit, withCounts }: { after: KeysetPosition | null; limit: number; withCounts: boolean },
): Promise<ProductPageRows> {
  const { keys, values } = sortKeys(q, after);
  const filters = matches(q);
  const position = values && afterPosition(keys, values);
  const direction = (key: SortKey) => sql.raw(key.descending ? 'DESC' : 'ASC');
  let page = db
    .selectFrom('products')
    .select(productColumns)
    .where(all(position ? [...filters, position] : filters));
  for (const key of keys) page = page.orderBy(sql`${key.column} ${direction(key)}`);
  // A search's or an updatedAfter's best plan depends on its value (a rare text reads the trigram indexes, a
  // common one walks the order; a recent instant reads the updated_at index): planned for each request.
  // Other shapes are one index range whatever the values: prepared once per connection.
  const generic = q.search === null && q.updatedAfter === null;
  const run = <R>(compiled: CompiledQuery<R>) =>
    generic ? executeAsPrepared(db, compiled) : db.executeQuery(compiled).then((r) => r.rows);
  if (!withCounts) return { rows: await run(page.limit(limit).compile()), total: null, skipped: null };

  const keyed = page.select(keys.map((key, i) => sql`${key.column}`.as(`sort_key_${i}`))).limit(limit);
  const skipped = position ? sql`count(*) FILTER (WHERE NOT (${position}))` : sql`0`;
  const rows = await run(
    sql<PageRow>`
    SELECT c.total, c.skipped, p.*
    FROM (SELECT count(*) AS total, ${skipped} AS skipped FROM products WHERE ${all(filters)}) c
    LEFT JOIN LATERAL (${keyed}) p ON true
    ORDER BY ${sql.join(keys.map((key, i) => sql`${sql.ref(`p.sort_key_${i}`)} ${direction(key)}`))}
  `.compile(db),
  );
  const first = rows[0];
  return {
    total: Number(first?.total ?? 0),
    skipped: Number(first?.skipped ?? 0),
    rows: rows.filter((r) => r.id !== null).map(({ total: _t, skipped: _s, ...row }) => stripSortKeys(row)),
  };
}

type PageRow = { total: string; skipped: string; id: string | null } & Record<string, unknown>;

function stripSortKeys(row: Record<string, unknown>): ProductRow {
  for (const key of Object.keys(row)) if (key.startsWith('sort_key_')) delete row[key];
  return row as unknown as ProductRow;
}

/** Products by sku, for productBySku's loader. */
export const findProductsBySkus = (db: CatalogDb, skus: readonly string[]) =>
  db
    .selectFrom('products')
    .select(productColumns)
    .where(sql<boolean>`sku = ANY(${[...skus]}::text[])`)
    .execute() as Promise<ProductRow[]>;
