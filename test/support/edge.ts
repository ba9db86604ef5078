import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/** Every field of the catalogue, to the deepest level the schema has. */
export const FULL_PRODUCT = `id name sku steps { id name order components { id name customisations { id name type price } } }`;
export const FULL_PAGE_INFO = `paginatorInfo { count currentPage firstItem hasMorePages lastItem lastPage perPage total endCursor }`;

export const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** FEDERATION_SECRET of test apps that play the subgraph, and the header a gateway sends with it. */
export const FEDERATION_SECRET = 'federation-secret-for-tests-0123456789abcdef';
export const GATEWAY_HEADERS = { 'router-authorization': FEDERATION_SECRET };

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A request to /graphql with full control over method, headers and body. */
export async function rawGraphQL(
  t: TestApp,
  init: { method?: string; token?: string; headers?: Record<string, string>; body?: string; search?: string } = {},
): Promise<RawResponse> {
  const res = await fetch(`${t.url}/graphql${init.search ?? ''}`, {
    method: init.method ?? 'POST',
    headers: {
      accept: GRAPHQL_RESPONSE,
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.body,
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** POST a JSON GraphQL request. */
export function postGraphQL(
  t: TestApp,
  token: string,
  payload: { query: string; variables?: Record<string, unknown>; operationName?: string },
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return rawGraphQL(t, {
    token,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });
}

/**
 * Since the last reset, only the bearer-token lookup (and its last-used touch)
 * reached the database: the request was refused before any resolver ran.
 */
export function expectOnlyTokenLookup(t: TestApp): void {
  const statements = t.database.queries.statements;
  for (const sql of statements) expect(sql).toMatch(/personal_access_tokens/);
  expect(statements.join('\n')).not.toMatch(/\b(products|steps|components|customisations)\b/);
}

/** Row counts of every catalogue and auth table. */
export async function countRows(t: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of [
    'products',
    'steps',
    'components',
    'customisations',
    'users',
    'personal_access_tokens',
  ] as const) {
    const row = await t.app.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

/** A user and a token for it. */
export async function tokenFor(t: TestApp): Promise<string> {
  const user = await t.createUser();
  return t.login(user.email, user.password);
}
