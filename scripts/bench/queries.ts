import { createRng } from '../../db/seeds/catalog.ts';

/**
 * The benchmark's four operations. Both servers receive the very same POST bodies;
 * the reference server recognises these exact query texts and nothing else.
 */

const CUSTOMISATION = 'id name type price';
const COMPONENT = `id name customisations { ${CUSTOMISATION} }`;
const STEP = `id name order components { ${COMPONENT} }`;
/** Every field of a product, full depth (the abuse run selects it too). */
export const PRODUCT = `id name sku steps { ${STEP} }`;

export const QUERIES = {
  Q0: '{ __typename }',
  Q1: `query Product($id: ID!) { product(id: $id) { ${PRODUCT} } }`,
  Q2: `query Page($after: String) { products(first: 20, after: $after) { data { ${PRODUCT} } paginatorInfo { hasMorePages endCursor } } }`,
  Q3: '{ products(first: 20) { data { id name sku } } }',
} as const;

export type QueryName = keyof typeof QUERIES;
export const QUERY_NAMES = Object.keys(QUERIES) as QueryName[];

export const QUERY_LABELS: Record<QueryName, string> = {
  Q0: '{ __typename }',
  Q1: 'product(id) full depth, random ids',
  Q2: 'products(first: 20, after) full depth, random cursors',
  Q3: 'products(first: 20) { data { id name sku } }',
};

/**
 * The distinct request bodies a case draws from: random product ids for Q1, random
 * cursors (the service's own encoding) for Q2. Seeded, so runs are repeatable.
 */
export function requestBodies(
  name: QueryName,
  productIds: readonly string[],
  count: number,
  encodeCursor: (id: string) => string,
): string[] {
  const rng = createRng(name === 'Q1' ? 1 : 2);
  const pick = () => productIds[Math.floor(rng() * productIds.length)]!;
  switch (name) {
    case 'Q0':
    case 'Q3':
      return [JSON.stringify({ query: QUERIES[name] })];
    case 'Q1':
      return Array.from({ length: count }, () => JSON.stringify({ query: QUERIES.Q1, variables: { id: pick() } }));
    case 'Q2':
      return Array.from({ length: count }, () =>
        JSON.stringify({ query: QUERIES.Q2, variables: { after: encodeCursor(pick()) } }),
      );
  }
}
