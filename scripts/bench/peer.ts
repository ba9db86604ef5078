import type { Server } from '../lib/service-process.ts';
import type { QueryName } from './queries.ts';
import { postGraphQL } from './verify.ts';

/**
 * The PostGraphile 5 peer (scripts/bench/postgraphile): Q0..Q3 as PostGraphile's amber preset exposes
 * them, the same data at the same depth and order as the service's and the reference's. Its answers
 * differ in shape (connections, rowId, prices as BigFloat strings), so they are compared with the
 * reference's after both are reduced to the same plain values.
 */

const CUSTOMISATIONS =
  'customisationsByComponentId: customisationsByTenantIdAndComponentId(orderBy: PRIMARY_KEY_ASC) { nodes { rowId name type price } }';
const COMPONENTS = `componentsByStepId: componentsByTenantIdAndStepId(orderBy: [POSITION_ASC, PRIMARY_KEY_ASC]) { nodes { rowId name ${CUSTOMISATIONS} } }`;
const STEPS = `stepsByProductId: stepsByTenantIdAndProductId(orderBy: ORDER_ASC) { nodes { rowId name order ${COMPONENTS} } }`;
const PRODUCT = `rowId name sku ${STEPS}`;

export const PEER_QUERIES: Partial<Record<QueryName, string>> = {
  Q0: '{ __typename }',
  Q1: `query Product($id: BigInt!) { productByRowId: productByTenantIdAndRowId(tenantId: "1", rowId: $id) { ${PRODUCT} } }`,
  Q2: `query Page($after: Cursor) { allProducts(first: 20, after: $after, orderBy: PRIMARY_KEY_ASC) { nodes { ${PRODUCT} } pageInfo { hasNextPage endCursor } } }`,
  Q3: '{ allProducts(first: 20, orderBy: PRIMARY_KEY_ASC) { nodes { rowId name sku } } }',
};
export const PEER_NAME = 'postgraphile';

/** PostGraphile's cursor for allProducts(orderBy: PRIMARY_KEY_ASC): base64 JSON [digest of the order, tenant_id, id]. */
export interface PeerCursors {
  encode(id: string): string;
  decode(cursor: string): string | null;
}

/** Learns the order's digest from a first page: the cursor after a given id is then PostGraphile's own. */
export async function peerCursors(peer: Server): Promise<PeerCursors> {
  const res = await fetch(`${peer.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: '{ allProducts(first: 1, orderBy: PRIMARY_KEY_ASC) { pageInfo { endCursor } } }' }),
  });
  const text = await res.text();
  const cursor = (JSON.parse(text) as { data?: { allProducts?: { pageInfo?: { endCursor?: string } } } }).data
    ?.allProducts?.pageInfo?.endCursor;
  const parsed = cursor ? (JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as unknown) : null;
  // The primary key is (tenant_id, id): the bench's catalogue is one tenant's.
  if (!Array.isArray(parsed) || parsed.length !== 3 || typeof parsed[0] !== 'string')
    throw new Error(`postgraphile: unexpected cursor in ${text.slice(0, 300)}`);
  const [digest, tenant] = parsed as [string, string];
  return {
    encode: (id) => Buffer.from(JSON.stringify([digest, tenant, id]), 'utf8').toString('base64'),
    decode: (c) => {
      const v = JSON.parse(Buffer.from(c, 'base64').toString('utf8')) as unknown;
      return Array.isArray(v) && v[0] === digest && v[1] === tenant && typeof v[2] === 'string' ? v[2] : null;
    },
  };
}

/**
 * The peer's body for one of the service's: the same ids, the same page start (the service's cursor
 * after id X becomes PostGraphile's cursor after id X).
 */
export function toPeerBody(
  q: QueryName,
  body: string,
  decodeServiceCursor: (cursor: string) => string | null,
  cursors: PeerCursors,
): string {
  const query = PEER_QUERIES[q];
  if (!query) throw new Error(`postgraphile does not run ${q}`);
  const { variables } = JSON.parse(body) as { variables?: Record<string, unknown> };
  if (q === 'Q2') {
    const id = typeof variables?.after === 'string' ? decodeServiceCursor(variables.after) : null;
    if (id === null) throw new Error(`Q2: not a product cursor: ${body}`);
    return JSON.stringify({ query, variables: { after: cursors.encode(id) } });
  }
  return JSON.stringify(variables ? { query, variables } : { query });
}

type Json = Record<string, unknown>;
const nodes = (c: unknown) => ((c as { nodes?: unknown[] } | null)?.nodes ?? []) as Json[];
const list = (v: unknown) => (Array.isArray(v) ? v : []) as Json[];

/** A product at full depth as plain values, from either side; prices as numbers. */
function product(p: Json, peer: boolean): unknown {
  const id = (o: Json) => (peer ? o.rowId : o.id);
  const steps = peer ? nodes(p.stepsByProductId) : list(p.steps);
  return {
    id: id(p),
    name: p.name,
    sku: p.sku,
    steps:
      p.stepsByProductId === undefined && p.steps === undefined
        ? undefined
        : steps.map((s) => ({
            id: id(s),
            name: s.name,
            order: s.order,
            components: (peer ? nodes(s.componentsByStepId) : list(s.components)).map((c) => ({
              id: id(c),
              name: c.name,
              customisations: (peer ? nodes(c.customisationsByComponentId) : list(c.customisations)).map((u) => ({
                id: id(u),
                name: u.name,
                type: u.type,
                price: Number(u.price),
              })),
            })),
          })),
  };
}

/** The answer reduced to plain values; page end cursors as the id they point after. */
function normalise(q: QueryName, text: string, peer: boolean, decodeCursor: (c: string) => string | null): string {
  const data = (JSON.parse(text) as { data?: Json }).data ?? {};
  switch (q) {
    case 'Q0':
      return JSON.stringify(data);
    case 'Q1': {
      const p = (peer ? data.productByRowId : data.product) as Json | null;
      return JSON.stringify(p ? product(p, peer) : null);
    }
    default: {
      const page = (peer ? data.allProducts : data.products) as Json | undefined;
      const rows = peer ? nodes(page) : list(page?.data);
      const info = (peer ? page?.pageInfo : page?.paginatorInfo) as Json | undefined;
      const end = info?.endCursor as string | null | undefined;
      return JSON.stringify({
        rows: rows.map((p) => product(p, peer)),
        more: peer ? info?.hasNextPage : info?.hasMorePages,
        after: typeof end === 'string' ? decodeCursor(end) : end,
      });
    }
  }
}

/**
 * Posts each pair (the reference's body, the peer's) and compares the data: same ids, names, skus, types
 * and prices, same order, same page ends. The peer is sent the bench's Authorization header, which it ignores.
 */
export async function verifyPeer(
  q: QueryName,
  pairs: [string, string][],
  token: string,
  reference: Server,
  peer: Server,
  decodeServiceCursor: (cursor: string) => string | null,
  cursors: PeerCursors,
): Promise<string[]> {
  const problems: string[] = [];
  const post = (server: Server, body: string) => postGraphQL(server, token, body);
  let next = 0;
  const worker = async () => {
    while (next < pairs.length && problems.length < 5) {
      const [refBody, peerBody] = pairs[next++]!;
      const [a, b] = await Promise.all([post(reference, refBody), post(peer, peerBody)]);
      const bad = (r: { status: number; text: string }) =>
        r.status !== 200 || !r.text.startsWith('{"data":{') || r.text.includes('"errors"');
      let same = false;
      if (!bad(a) && !bad(b)) {
        const ra = normalise(q, a.text, false, decodeServiceCursor);
        same = ra === normalise(q, b.text, true, cursors.decode) && ra !== 'null' && !ra.includes('"rows":[]');
      }
      if (!same)
        problems.push(
          `${q} ${peerBody}\n  reference    ${a.status} ${a.text.slice(0, 300)}\n  postgraphile ${b.status} ${b.text.slice(0, 300)}`,
        );
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return problems;
}
