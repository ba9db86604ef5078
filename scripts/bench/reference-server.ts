import http from 'node:http';
import pg from 'pg';
import { encodeCursor } from '../../src/modules/catalog/tools.ts';
import { hashSecret, parseBearerHeader } from '../../src/modules/auth/index.ts';
import { QUERIES } from './queries.ts';

/**
 * The benchmark's reference: the least work a server can do for the benchmark's
 * four operations. Bare node:http, no GraphQL engine; the query text only selects
 * one of four named prepared statements, each of which checks the bearer token and
 * builds the whole response JSON inside PostgreSQL; the text passes through to the
 * client untouched (plus a constant envelope).
 *
 * Token: validated, cheaply, in the same statement: the token row by id with
 * token_hash = sha256(secret) and not expired. That is the service's rule (same
 * sha256, same lookup by id) without its constant-time compare in Node and without
 * the once-a-minute last_used_at write.
 *
 * Byte-for-byte equality with the service: row_to_json and array_to_json print
 * compact JSON with the columns in SELECT order (json_build_object and json_agg
 * would add spaces); ids are cast to text (GraphQL ID); trim_scale(price) prints
 * numeric(12,2) as the shortest decimal, which is what GraphQL Float's JSON number
 * prints (12.50 -> 12.5, 100.00 -> 100, 0.29 -> 0.29).
 *
 * Env: DATABASE_URL, PORT (0: any), POOL_SIZE (10). Prints "listening <port>".
 */

const TOKEN_OK = `EXISTS (
  SELECT 1 FROM personal_access_tokens
  WHERE id = $1::bigint AND token_hash = $2 AND (expires_at IS NULL OR expires_at > now())
)`;

const customisations = (componentId: string) => `COALESCE((
  SELECT array_to_json(array_agg(row_to_json(w) ORDER BY cu.id))
  FROM customisations cu
  CROSS JOIN LATERAL (SELECT cu.id::text AS id, cu.name, cu.type, trim_scale(cu.price) AS price) w
  WHERE cu.component_id = ${componentId}
), '[]')`;

const components = (stepId: string) => `COALESCE((
  SELECT array_to_json(array_agg(row_to_json(z) ORDER BY c.position, c.id))
  FROM components c
  CROSS JOIN LATERAL (SELECT c.id::text AS id, c.name, ${customisations('c.id')} AS customisations) z
  WHERE c.step_id = ${stepId}
), '[]')`;

const steps = (productId: string) => `COALESCE((
  SELECT array_to_json(array_agg(row_to_json(y) ORDER BY s."order"))
  FROM steps s
  CROSS JOIN LATERAL (SELECT s.id::text AS id, s.name, s."order", ${components('s.id')} AS components) y
  WHERE s.product_id = ${productId}
), '[]')`;

const productColumns = (p: string) => `SELECT ${p}.id::text AS id, ${p}.name, ${p}.sku, ${steps(`${p}.id`)} AS steps`;

const STATEMENTS = {
  Q0: `SELECT ${TOKEN_OK} AS ok`,
  // $3: product id
  Q1: `
    SELECT t.ok, CASE WHEN t.ok THEN (
      SELECT row_to_json(x)::text FROM products p CROSS JOIN LATERAL (${productColumns('p')}) x WHERE p.id = $3::bigint
    ) END AS body
    FROM (SELECT ${TOKEN_OK} AS ok) t`,
  // $3: id after which the page starts, $4: page size. One row past the page says hasMorePages.
  Q2: `
    WITH t AS (SELECT ${TOKEN_OK} AS ok),
    probe AS (SELECT id, name, sku FROM products WHERE (SELECT ok FROM t) AND id > $3::bigint ORDER BY id LIMIT $4::int + 1),
    page AS (SELECT * FROM probe ORDER BY id LIMIT $4::int)
    SELECT t.ok,
      CASE WHEN t.ok THEN COALESCE((
        SELECT array_to_json(array_agg(row_to_json(x) ORDER BY p.id))
        FROM page p CROSS JOIN LATERAL (${productColumns('p')}) x
      ), '[]')::text END AS body,
      (SELECT count(*) FROM probe) > $4::int AS has_more,
      (SELECT max(id) FROM page)::text AS last_id
    FROM t`,
  Q3: `
    SELECT t.ok, CASE WHEN t.ok THEN COALESCE((
      SELECT array_to_json(array_agg(row_to_json(x) ORDER BY p.id))
      FROM (SELECT id, name, sku FROM products ORDER BY id LIMIT 20) p
      CROSS JOIN LATERAL (SELECT p.id::text AS id, p.name, p.sku) x
    ), '[]')::text END AS body
    FROM (SELECT ${TOKEN_OK} AS ok) t`,
};

const UNAUTHENTICATED = JSON.stringify({
  errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }],
});

type Row = { ok: boolean; body?: string | null; has_more?: boolean; last_id?: string | null };
type Handler = (token: [string, string], variables: Record<string, unknown>) => Promise<string | null>;

export function createReferenceServer(pool: pg.Pool): http.Server {
  const run = async (name: keyof typeof STATEMENTS, values: unknown[]): Promise<Row | null> => {
    const { rows } = await pool.query<Row>({ name: `ref_${name}`, text: STATEMENTS[name], values });
    const row = rows[0]!;
    return row.ok ? row : null;
  };
  const handlers = new Map<string, Handler>([
    [QUERIES.Q0, async (t) => ((await run('Q0', t)) ? '{"data":{"__typename":"Query"}}' : null)],
    [
      QUERIES.Q1,
      async (t, v) => {
        const id = typeof v.id === 'string' || typeof v.id === 'number' ? String(v.id) : '';
        // The service answers null for an id no product can have; so does this.
        if (!/^[1-9][0-9]{0,18}$/.test(id)) return (await run('Q0', t)) ? '{"data":{"product":null}}' : null;
        const row = await run('Q1', [...t, id]);
        return row ? `{"data":{"product":${row.body ?? 'null'}}}` : null;
      },
    ],
    [
      QUERIES.Q2,
      async (t, v) => {
        const after = typeof v.after === 'string' ? decodeAfter(v.after) : '0';
        const row = await run('Q2', [...t, after, 20]);
        if (!row) return null;
        const cursor = row.last_id ? `"${encodeCursor('product', row.last_id)}"` : 'null';
        return `{"data":{"products":{"data":${row.body},"paginatorInfo":{"hasMorePages":${row.has_more},"endCursor":${cursor}}}}}`;
      },
    ],
    [
      QUERIES.Q3,
      async (t) => {
        const row = await run('Q3', t);
        return row ? `{"data":{"products":{"data":${row.body}}}}` : null;
      },
    ],
  ]);

  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      respond(req, Buffer.concat(chunks).toString('utf8'))
        .then(([status, body]) => {
          res.writeHead(status, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': Buffer.byteLength(body),
          });
          res.end(body);
        })
        .catch((err: Error) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(err.message);
        });
    });
  });

  async function respond(req: http.IncomingMessage, text: string): Promise<[number, string]> {
    if (req.method !== 'POST' || req.url !== '/graphql') return [404, '{"error":"not found"}'];
    const parsed = parseBearerHeader(req.headers.authorization);
    if (!parsed) return [401, UNAUTHENTICATED];
    const { query, variables } = JSON.parse(text) as { query: string; variables?: Record<string, unknown> };
    const handler = handlers.get(query);
    if (!handler) return [400, '{"error":"the reference serves the benchmark queries only"}'];
    const body = await handler([parsed.id, hashSecret(parsed.secret)], variables ?? {});
    return body === null ? [401, UNAUTHENTICATED] : [200, body];
  }
}

/** The id inside a product cursor; the bench only sends cursors the service issued. */
export function decodeAfter(cursor: string): string {
  const match = /^product:([0-9]+):/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new Error('bad cursor');
  return match[1]!;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
  // The bench ends idle backends to flush their statistics; the pool just reconnects.
  pool.on('error', () => {});
  const server = createReferenceServer(pool);
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
  });
  const stop = () => server.close(() => void pool.end().then(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
