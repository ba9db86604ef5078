import { sql, type RawBuilder } from 'kysely';
import type { PriceMode } from './generated/enums.ts';
import type { CatalogDb } from './tables.ts';
import { preparedQuery } from '../../platform/prepared.ts';
import { epochMs } from '../../platform/instants.ts';
import type {
  ComponentParent,
  ConfigurationRuleParent,
  CustomisationParent,
  ProductParent,
  StepParent,
} from './parents.ts';

// Reads return rows shaped as GraphQL parents: ids and parent keys cast to text, prices to float8, so pg parses
// nothing and no mapper copies a row. float8 is exact: numeric(12,2) has at most 12 significant digits, and
// PostgreSQL prints the shortest text that reads back as the same double, as Number('12.50') gives 12.5.
// Cents are multiplied out in numeric, exactly, then sent as float8: a whole number below 10^14, which a
// double holds exactly (int8 would arrive as a string to parse). No float arithmetic ever touches them.

export type ProductRow = ProductParent;
export interface StepRow extends StepParent {
  product_id: string;
}
export interface ComponentRow extends ComponentParent {
  step_id: string;
}
export interface CustomisationRow extends CustomisationParent {
  component_id: string;
}
export interface RuleRow extends ConfigurationRuleParent {
  product_id: string;
}

const idText = sql<string>`id::text`.as('id');
const productIdText = sql<string>`product_id::text`.as('product_id');
const stepIdText = sql<string>`step_id::text`.as('step_id');
const componentIdText = sql<string>`component_id::text`.as('component_id');
const priceFloat = sql<number>`price::float8`.as('price');
// Cents scaled as float8 and rounded (numeric arithmetic costs several times more per value): exact for
// numeric(12,2), whose largest price (999,999,999,999 cents) is below 2^40.
const priceCents = sql<number>`round(price::float8 * 100)`.as('priceCents');
const basePriceFloat = sql<number>`base_price::float8`.as('basePrice');
const basePriceCents = sql<number>`round(base_price::float8 * 100)`.as('basePriceCents');
const priceMode = sql<PriceMode>`price_mode`.as('priceMode');
const minSelections = sql<number>`min_selections`.as('minSelections');
const maxSelections = sql<number | null>`max_selections`.as('maxSelections');
const createdAtMs = epochMs('created_at').as('createdAt');
const updatedAtMs = epochMs('updated_at').as('updatedAt');
// The size of the product's tree (migration 0015): what an answer about it can hold is known before a child is read.
const stepCount = sql<number>`step_count`.as('stepCount');
const componentCount = sql<number>`component_count`.as('componentCount');
const customisationCount = sql<number>`customisation_count`.as('customisationCount');
// ORDER BY prefers an output column (now text) to a table column of the same name: every ORDER BY names its table.

export interface ProductPageRows {
  rows: ProductRow[];
  total: number | null;
  /** Products with an id at or before the cursor: the page's offset (null when not asked for). */
  skipped: number | null;
}

type PageRow = {
  total: string | null;
  skipped: string | null;
} & { [K in keyof ProductRow]: ProductRow[K] | null };

// productColumns, for the page statements written in SQL.
const PAGE_COLUMNS = sql.join([
  idText,
  sql.ref('name'),
  sql.ref('sku'),
  basePriceFloat,
  basePriceCents,
  sql.ref('currency'),
  createdAtMs,
  updatedAtMs,
  stepCount,
  componentCount,
  customisationCount,
]);

// The page of rows after an id, as every page statement below reads it.
const pageAfterId = sql`SELECT ${PAGE_COLUMNS} FROM products WHERE id > ${'0'}::bigint ORDER BY products.id LIMIT ${1}`;

/** The page joined to one row of counts (`c`), both from one snapshot. */
const pageWithCounts = (counts: RawBuilder<unknown>, total: RawBuilder<unknown>) => (db: CatalogDb) =>
  sql<PageRow>`
    SELECT ${total} AS total, c.skipped, p.*
    FROM (${counts}) c
    LEFT JOIN LATERAL (${pageAfterId}) p ON true
    ORDER BY p.id::bigint
  `.compile(db);

// The counts scan every product id: only pages that select a counted field pay for them.
const productPageWithCounts = preparedQuery<PageRow>(
  'catalog_product_page_counted',
  pageWithCounts(
    sql`SELECT count(*) AS total, count(*) FILTER (WHERE id <= ${'0'}::bigint) AS skipped FROM products`,
    sql`c.total`,
  ),
);
const productPage = preparedQuery<ProductRow>('catalog_product_page', (db) =>
  sql<ProductRow>`${pageAfterId}`.compile(db),
);

// The position alone (an unfiltered total known from the change feed): a range of the id index.
const productPageWithPosition = preparedQuery<PageRow>(
  'catalog_product_page_positioned',
  pageWithCounts(sql`SELECT count(*) AS skipped FROM products WHERE id <= ${'0'}::bigint`, sql`NULL`),
);

/**
 * `limit` is one more than the page size: the extra row only says whether another page exists.
 * `counts`: 'all' counts the total and the products before the page, 'position' only the latter.
 */
export async function findProductPage(
  db: CatalogDb,
  { afterId, limit, counts }: { afterId: string | null; limit: number; counts: 'all' | 'position' | 'none' },
): Promise<ProductPageRows> {
  const after = afterId ?? '0';
  if (counts === 'none') return { total: null, skipped: null, rows: await productPage.execute(db, [after, limit]) };
  const counted = counts === 'all' ? productPageWithCounts : productPageWithPosition;
  const rows = await counted.execute(db, [after, after, limit]);
  const first = rows[0];
  return {
    total: counts === 'all' ? Number(first?.total ?? 0) : null,
    skipped: Number(first?.skipped ?? 0),
    rows: rows.filter((r): r is PageRow & ProductRow => r.id !== null),
  };
}

export const productColumns = [
  idText,
  'name',
  'sku',
  basePriceFloat,
  basePriceCents,
  'currency',
  createdAtMs,
  updatedAtMs,
  stepCount,
  componentCount,
  customisationCount,
] as const;
export const stepColumns = [idText, productIdText, 'name', 'order', 'required', createdAtMs, updatedAtMs] as const;
export const componentColumns = [
  idText,
  stepIdText,
  'name',
  'position',
  minSelections,
  maxSelections,
  createdAtMs,
  updatedAtMs,
] as const;
export const customisationColumns = [
  idText,
  componentIdText,
  'name',
  'type',
  priceFloat,
  priceCents,
  priceMode,
  createdAtMs,
  updatedAtMs,
] as const;
const ruleColumns = [
  idText,
  productIdText,
  'kind',
  sql<string>`customisation_id::text`.as('customisationId'),
  sql<string>`other_customisation_id::text`.as('otherCustomisationId'),
  'message',
] as const;

const anyOf = (column: string) => sql<boolean>`${sql.ref(column)} = ANY(${[]}::bigint[])`;

const productsByIds = preparedQuery<ProductRow>('catalog_products_by_ids', (db: CatalogDb) =>
  db.selectFrom('products').select(productColumns).where(anyOf('id')),
);
const stepsByIds = preparedQuery<StepRow>('catalog_steps_by_ids', (db: CatalogDb) =>
  db.selectFrom('steps').select(stepColumns).where(anyOf('id')),
);
// Read by their own ids (entity references, price lines, rule ends), with the product they belong to:
// the response cache drops such an answer when that product changes.
const componentsByIds = preparedQuery<ComponentRow & { product_id: string }>(
  'catalog_components_by_ids',
  (db: CatalogDb) =>
    db
      .selectFrom('components')
      .select([
        ...componentColumns,
        sql<string>`(SELECT s.product_id::text FROM steps s WHERE s.id = components.step_id)`.as('product_id'),
      ])
      .where(anyOf('id')),
);
const customisationsByIds = preparedQuery<CustomisationRow & { product_id: string }>(
  'catalog_customisations_by_ids',
  (db: CatalogDb) =>
    db
      .selectFrom('customisations')
      .select([
        ...customisationColumns,
        sql<string>`(SELECT s.product_id::text FROM components c JOIN steps s ON s.id = c.step_id WHERE c.id = customisations.component_id)`.as(
          'product_id',
        ),
      ])
      .where(anyOf('id')),
);
const stepsByProductIds = preparedQuery<StepRow>('catalog_steps_by_product_ids', (db: CatalogDb) =>
  db
    .selectFrom('steps')
    .select(stepColumns)
    .where(anyOf('product_id'))
    .orderBy('steps.product_id')
    .orderBy('steps.order'),
);
const componentsByStepIds = preparedQuery<ComponentRow>('catalog_components_by_step_ids', (db: CatalogDb) =>
  db
    .selectFrom('components')
    .select(componentColumns)
    .where(anyOf('step_id'))
    .orderBy('components.step_id')
    .orderBy('components.position')
    .orderBy('components.id'),
);
const customisationsByComponentIds = preparedQuery<CustomisationRow>(
  'catalog_customisations_by_component_ids',
  (db: CatalogDb) =>
    db
      .selectFrom('customisations')
      .select(customisationColumns)
      .where(anyOf('component_id'))
      .orderBy('customisations.component_id')
      .orderBy('customisations.id'),
);

const rulesByProductIds = preparedQuery<RuleRow>('catalog_rules_by_product_ids', (db: CatalogDb) =>
  db
    .selectFrom('configuration_rules')
    .select(ruleColumns)
    .where(anyOf('product_id'))
    .orderBy('configuration_rules.product_id')
    .orderBy('configuration_rules.id'),
);

export const findProductsByIds = (db: CatalogDb, ids: readonly string[]) => productsByIds.execute(db, [ids]);
export const findStepsByIds = (db: CatalogDb, ids: readonly string[]) => stepsByIds.execute(db, [ids]);
export const findComponentsByIds = (db: CatalogDb, ids: readonly string[]) => componentsByIds.execute(db, [ids]);
export const findCustomisationsByIds = (db: CatalogDb, ids: readonly string[]) =>
  customisationsByIds.execute(db, [ids]);
export const findStepsByProductIds = (db: CatalogDb, productIds: readonly string[]) =>
  stepsByProductIds.execute(db, [productIds]);
export const findComponentsByStepIds = (db: CatalogDb, stepIds: readonly string[]) =>
  componentsByStepIds.execute(db, [stepIds]);
export const findCustomisationsByComponentIds = (db: CatalogDb, componentIds: readonly string[]) =>
  customisationsByComponentIds.execute(db, [componentIds]);

export const findRulesByProductIds = (db: CatalogDb, productIds: readonly string[]) =>
  rulesByProductIds.execute(db, [productIds]);

export async function countProducts(db: CatalogDb): Promise<number> {
  const row = await db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
