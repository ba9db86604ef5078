import { createRng } from '../../db/seeds/catalog.ts';
import { zipfSampler } from './zipf.ts';

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
  // The product at Q1's full depth, checked and priced with ten choices (the reference serves no configure).
  Q4: `query Configure($id: ID!, $selections: [SelectionInput!]!) { configure(productId: $id, selections: $selections) { product { ${PRODUCT} } valid violations { code customisationId } price { base { amount currency } lines { customisationId name mode amount { amount } } total { amount currency } } } }`,
  // products(search) and products(orderBy) pages, each beside Q3, the plain page (the reference serves neither).
  Q5: 'query Find($search: String!) { products(first: 20, search: $search) { data { id name sku } } }',
  Q6: 'query ByName($after: String!) { products(first: 20, after: $after, orderBy: [{ column: NAME, order: ASC }]) { data { id name sku } } }',
  Q5t: 'query FindCounted($search: String!) { products(first: 20, search: $search) { data { id name sku } paginatorInfo { total } } }',
  // Q2 and Q3 with the unfiltered total and lastPage (the seed's fields): what a count costs at each size.
  Q2t: `query PageCounted($after: String) { products(first: 20, after: $after) { data { ${PRODUCT} } paginatorInfo { hasMorePages endCursor total lastPage } } }`,
  Q3t: '{ products(first: 20) { data { id name sku } paginatorInfo { total lastPage } } }',
} as const;

/** Hot variants: Q1, Q2 and Q4 with ids and cursors drawn Zipf-like (s = 1) over the whole catalogue. */
const HOT = { Q1z: 'Q1', Q2z: 'Q2', Q4z: 'Q4' } as const;

/** What the reference server answers; the rest is compared with the service's own product(id). */
export const REFERENCE_QUERIES: readonly QueryName[] = ['Q0', 'Q1', 'Q2', 'Q3', 'Q1z', 'Q2z'];
/** Each configure query and the product(id) query it is measured against, on the same server. */
export const CONFIGURE_BASELINE: Partial<Record<QueryName, QueryName>> = { Q4: 'Q1', Q4z: 'Q1z' };
/** Each search or ordered page and the plain first page it is measured against, on the same server. */
export const FIND_BASELINE: Partial<Record<QueryName, QueryName>> = { Q5: 'Q3', Q6: 'Q3', Q5t: 'Q3' };
/** Each page with the unfiltered total and the same page without it, on the same server. */
export const COUNTED_BASELINE: Partial<Record<QueryName, QueryName>> = { Q2t: 'Q2', Q3t: 'Q3' };
/** The service-only queries' answers hold products: an empty page is a bad answer. */
export const FIND_QUERIES: readonly QueryName[] = ['Q5', 'Q6', 'Q5t', 'Q2t', 'Q3t'];
/** Ten choices per product: the first customisation of each of its first ten components (catalogue order). */
export type Selections = ReadonlyMap<string, readonly { customisationId: string; value?: string }[]>;
export const ZIPF_DRAWS = 20_000;

export type QueryName = keyof typeof QUERIES | keyof typeof HOT;
export const QUERY_NAMES = [...Object.keys(QUERIES), ...Object.keys(HOT)] as QueryName[];

export const QUERY_LABELS: Record<QueryName, string> = {
  Q0: '{ __typename }',
  Q1: 'product(id) full depth, random ids',
  Q2: 'products(first: 20, after) full depth, random cursors',
  Q3: 'products(first: 20) { data { id name sku } }',
  Q4: 'configure(productId, ten selections) { product full depth, price }, random ids',
  Q5: 'products(first: 20, search) { data { id name sku } }, searches of six characters matching 10 skus each',
  Q6: 'products(first: 20, after, orderBy NAME ASC) { data { id name sku } }, cursors past the first quarter of the walk',
  Q5t: 'Q5 with paginatorInfo { total }',
  Q2t: 'Q2 with paginatorInfo { total lastPage }',
  Q3t: 'Q3 with paginatorInfo { total lastPage }',
  Q1z: 'product(id) full depth, Zipf ids (s = 1) over the catalogue',
  Q2z: 'products(first: 20, after) full depth, Zipf cursors (s = 1) over the catalogue',
  Q4z: 'configure(productId, ten selections) { product full depth, price }, Zipf ids (s = 1)',
};

/** Which service runs a query: the cold one (no response cache) the uniform ones, the hot one the rest and Q1 (its misses, with --cache-bytes below one answer). */
export const COLD_QUERIES: readonly QueryName[] = ['Q0', 'Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6', 'Q5t', 'Q2t', 'Q3t'];
export const HOT_QUERIES: readonly QueryName[] = ['Q0', 'Q1', 'Q1z', 'Q2z', 'Q3', 'Q4z'];

/** The bench catalogue's skus are S<seed>-000001…: "-" and five digits match exactly ten of them. */
export function skuSearchTerms(products: number, count: number): string[] {
  const rng = createRng(5);
  const tens = Math.floor((products - 9) / 10);
  if (tens < 1) throw new Error('Q5 needs at least 19 products');
  return Array.from({ length: count }, () => `-${String(1 + Math.floor(rng() * tens)).padStart(5, '0')}`);
}

/** What Q5 and Q6 draw from: search terms, and cursors (the service's own) after products in name order. */
export interface FindInputs {
  searches: readonly string[];
  nameCursors: readonly string[];
}

/**
 * The distinct request bodies a case draws from: random product ids for Q1, random
 * cursors (the service's own encoding) for Q2. Seeded, so runs are repeatable.
 */
export function requestBodies(
  name: QueryName,
  productIds: readonly string[],
  count: number,
  encodeCursor: (id: string) => string,
  selections: Selections = new Map(),
  find: FindInputs = { searches: [], nameCursors: [] },
): string[] {
  // Q4 draws the very ids Q1 draws (Q4z those of Q1z), so the two compare on the same products.
  const rng = createRng(['Q1', 'Q1z', 'Q4', 'Q4z'].includes(name) ? 1 : 2);
  const pick = () => productIds[Math.floor(rng() * productIds.length)]!;
  // Popularity is not id order: rank r is the r-th id of a seeded shuffle.
  const shuffle = createRng(7);
  const byRank = [...productIds];
  for (let i = byRank.length - 1; i > 0; i--) {
    const j = Math.floor(shuffle() * (i + 1));
    [byRank[i], byRank[j]] = [byRank[j]!, byRank[i]!];
  }
  const rank = zipfSampler(byRank.length, 1, createRng(name === 'Q1z' || name === 'Q4z' ? 3 : 4));
  const zipf = () => byRank[rank()]!;
  switch (name) {
    case 'Q0':
    case 'Q3':
    case 'Q3t':
      return [JSON.stringify({ query: QUERIES[name] })];
    case 'Q1':
      return Array.from({ length: count }, () => JSON.stringify({ query: QUERIES.Q1, variables: { id: pick() } }));
    case 'Q2':
    case 'Q2t':
      return Array.from({ length: count }, () =>
        JSON.stringify({ query: QUERIES[name], variables: { after: encodeCursor(pick()) } }),
      );
    case 'Q1z':
      return Array.from({ length: ZIPF_DRAWS }, () =>
        JSON.stringify({ query: QUERIES[HOT[name]], variables: { id: zipf() } }),
      );
    case 'Q2z':
      return Array.from({ length: ZIPF_DRAWS }, () =>
        JSON.stringify({ query: QUERIES[HOT[name]], variables: { after: encodeCursor(zipf()) } }),
      );
    case 'Q5':
    case 'Q5t':
      return find.searches.map((search) => JSON.stringify({ query: QUERIES[name], variables: { search } }));
    case 'Q6':
      return find.nameCursors.map((after) => JSON.stringify({ query: QUERIES.Q6, variables: { after } }));
    case 'Q4':
    case 'Q4z': {
      const body = (id: string) =>
        JSON.stringify({ query: QUERIES.Q4, variables: { id, selections: selections.get(id) ?? [] } });
      return name === 'Q4'
        ? Array.from({ length: count }, () => body(pick()))
        : Array.from({ length: ZIPF_DRAWS }, () => body(zipf()));
    }
  }
}
