import type { Server } from '../lib/service-process.ts';
import { FIND_QUERIES, type QueryName } from './queries.ts';

/**
 * What is wrong with a find query's answer, or null: a full page of products, each with an id, a name
 * and a sku, matching the search when there is one, and a total no smaller than the page.
 */
export function findAnswerProblem(q: QueryName, body: string, text: string): string | null {
  const search = (JSON.parse(body) as { variables?: { search?: string } }).variables?.search;
  let products: { data?: unknown; paginatorInfo?: { total?: unknown } } | undefined;
  try {
    products = (JSON.parse(text) as { data?: { products?: typeof products } }).data?.products;
  } catch {
    return 'not JSON';
  }
  const rows = products?.data;
  if (!Array.isArray(rows) || rows.length === 0) return 'no products';
  for (const row of rows as Record<string, unknown>[]) {
    if (![row.id, row.name, row.sku].every((v) => typeof v === 'string' && v !== '')) return 'a product lacks a field';
    const hay = `${String(row.name)}\n${String(row.sku)}`.toLowerCase();
    if (search !== undefined && !hay.includes(search.toLowerCase())) return `${String(row.sku)} does not match`;
  }
  if (q === 'Q6' && rows.length !== 20) return `a page of ${rows.length}, not 20`;
  if (
    q === 'Q5t' &&
    !(typeof products?.paginatorInfo?.total === 'number' && products.paginatorInfo.total >= rows.length)
  )
    return 'no total, or a total smaller than the page';
  return null;
}

/** One POST /graphql as wrk sends it: the status and the body's text. */
export async function postGraphQL(server: Server, token: string, body: string) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/**
 * POSTs every distinct body to every server and compares the responses byte for byte; with one server, checks it
 * answers cleanly. bodyFor: what a server is sent for a body (the service's by documentId, with --trusted).
 */
export async function verify(
  q: QueryName,
  bodies: string[],
  token: string,
  servers: Server[],
  bodyFor: (server: Server, body: string) => string = (_, body) => body,
): Promise<string[]> {
  const problems: string[] = [];
  const post = (server: Server, body: string) => postGraphQL(server, token, bodyFor(server, body));
  let next = 0;
  const worker = async () => {
    while (next < bodies.length && problems.length < 5) {
      const body = bodies[next++]!;
      if (servers.length === 1) {
        // Nothing to compare with: a clean, valid answer is what is checked.
        const a = await post(servers[0]!, body);
        if (
          a.status !== 200 ||
          !a.text.startsWith('{"data":{') ||
          a.text.includes('"errors"') ||
          (a.text.includes('"valid":') && !a.text.includes('"valid":true'))
        ) {
          problems.push(`${q} ${body}\n  ${servers[0]!.name} ${a.status} ${a.text.slice(0, 300)}`);
        } else if (FIND_QUERIES.includes(q)) {
          const problem = findAnswerProblem(q, body, a.text);
          if (problem) problems.push(`${q} ${body}: ${problem}\n  ${servers[0]!.name} ${a.text.slice(0, 300)}`);
        }
        continue;
      }
      // Every server (each service mode and the reference) must answer the very same bytes.
      const answers = await Promise.all(servers.map((s) => post(s, body)));
      const first = answers[0]!;
      if (
        answers.some((r) => r.status !== 200 || r.text !== first.text) ||
        !first.text.startsWith('{"data":{') ||
        first.text.includes('"errors"')
      ) {
        problems.push(
          `${q} ${body}${answers.map((r, i) => `\n  ${servers[i]!.name.padEnd(9)} ${r.status} ${r.text.slice(0, 300)}`).join('')}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return problems;
}
