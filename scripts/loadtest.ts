import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { createRng } from '../db/seeds/catalog.ts';
import { QUERIES } from './bench/queries.ts';
import { zipfSampler } from './bench/zipf.ts';

/**
 * A load test against any running instance, for users of the service:
 *
 *   npm run loadtest -- --url http://127.0.0.1:4000 --token '<id>|<secret>' \
 *     --query mix|product|page --distribution zipf|uniform --connections 50 --duration 30
 *
 * `product` asks product(id) at full depth, `page` asks products(first: 20, after) at
 * full depth, `mix` sends 78 % pages and 22 % products (a storefront's read-heavy mix).
 * Ids and cursors are collected first by walking up to --sample products with the same
 * token, then drawn Zipf-like (s = 1: a few are popular, most are rare) or uniformly.
 * Prints progress every second and a summary table; exits 1 when any request
 * failed (connection error, timeout, non-2xx or a GraphQL error in the body).
 */

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:4000' },
    token: { type: 'string' },
    query: { type: 'string', default: 'mix' },
    distribution: { type: 'string', default: 'zipf' },
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '30' },
    sample: { type: 'string', default: '10000' },
    help: { type: 'boolean', default: false },
  },
});

if (
  opts.help ||
  !opts.token ||
  !['mix', 'product', 'page'].includes(opts.query) ||
  !['zipf', 'uniform'].includes(opts.distribution)
) {
  console.error(
    'usage: npm run loadtest -- --url U --token T [--query mix|product|page] [--distribution zipf|uniform] [--connections 50] [--duration 30] [--sample 10000]\n' +
      '  T is a bearer token from POST /api/v1/login (or npm run admin).',
  );
  process.exit(opts.help ? 0 : 2);
}

const base = opts.url.replace(/\/+$/, '');
const endpoint = `${base}/graphql`;
const headers = {
  'content-type': 'application/json',
  accept: 'application/json',
  authorization: `Bearer ${opts.token}`,
};
const connections = Number(opts.connections);
const duration = Number(opts.duration);

async function graphql<Data>(query: string, variables: Record<string, unknown>): Promise<Data> {
  const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data: Data; errors?: { message: string }[] };
  if (res.status !== 200 || body.errors) {
    throw new Error(`${res.status} ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
  }
  return body.data;
}

interface CatalogPage {
  products: { data: { id: string }[]; paginatorInfo: { hasMorePages: boolean; endCursor: string | null } };
}

/** Product ids and the cursor before each page of 20, collected with 100-product pages. */
async function sampleCatalog(limit: number): Promise<{ ids: string[]; cursors: (string | null)[] }> {
  const ids: string[] = [];
  const cursors: (string | null)[] = [null];
  let after: string | null = null;
  while (ids.length < limit) {
    const data: CatalogPage = await graphql(
      'query ($after: String) { products(first: 100, after: $after) { data { id } paginatorInfo { hasMorePages endCursor } } }',
      { after },
    );
    const page = data.products;
    ids.push(...page.data.map((p) => p.id));
    if (!page.paginatorInfo.hasMorePages) break;
    after = page.paginatorInfo.endCursor;
    cursors.push(after);
  }
  return { ids, cursors };
}

async function main(): Promise<number> {
  process.stderr.write(`sampling the catalogue at ${endpoint} ...\n`);
  const { ids, cursors } = await sampleCatalog(Number(opts.sample));
  if (ids.length === 0) throw new Error('the catalogue is empty: nothing to load-test');
  // Page cursors come from 100-product pages; products(first: 20) from any of them
  // is a valid random page.
  const products = ids.map((id) => JSON.stringify({ query: QUERIES.Q1, variables: { id } }));
  const pages = cursors.map((after) => JSON.stringify({ query: QUERIES.Q2, variables: { after } }));
  const rng = createRng(42);
  const draw = (bodies: string[]) => {
    if (opts.distribution === 'uniform') return () => bodies[Math.floor(rng() * bodies.length)]!;
    const rank = zipfSampler(bodies.length, 1, rng);
    return () => bodies[rank()]!;
  };
  const product = draw(products);
  const page = draw(pages);
  const next =
    opts.query === 'product' ? product : opts.query === 'page' ? page : () => (rng() < 0.78 ? page() : product());
  process.stderr.write(
    `${opts.query} (${opts.distribution}): ${products.length} products, ${pages.length} pages, ${connections} connections, ${duration} s\n\n`,
  );

  let graphqlErrors = 0;
  let second = 0;
  let lastTotal = 0;
  let total = 0;
  const instance = autocannon(
    {
      url: endpoint,
      connections,
      duration,
      timeout: 10,
      method: 'POST',
      headers,
      requests: [
        {
          setupRequest: (req) => ({ ...req, body: next() }),
          onResponse: (status, body) => {
            if (status === 200 && body.includes('"errors"')) graphqlErrors++;
          },
        },
      ],
    },
    () => {},
  );
  const times: number[] = [];
  instance.on('response', (_client, _status, _bytes, responseTime: number) => {
    total++;
    times.push(responseTime);
  });
  instance.on('tick', () => {
    second++;
    process.stderr.write(
      `  ${String(second).padStart(4)} s  ${String(total - lastTotal).padStart(6)} req/s  ${String(total).padStart(8)} total  ${graphqlErrors} GraphQL errors\n`,
    );
    lastTotal = total;
  });
  process.once('SIGINT', () => instance.stop());

  const result = await new Promise<Result>((resolve) => instance.once('done', resolve));
  times.sort((a, b) => a - b);
  const percentile = (q: number) =>
    times.length ? times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1) : '-';
  const label = {
    product: 'product(id) full depth',
    page: 'products(first: 20, after) full depth',
    mix: '78 % pages, 22 % product(id), full depth',
  };
  const rows: [string, string][] = [
    ['query', `${label[opts.query as keyof typeof label]}, ${opts.distribution}`],
    ['connections', String(connections)],
    ['duration', `${result.duration.toFixed(1)} s`],
    ['requests', String(result.requests.total)],
    [
      'req/s (mean / stdev / min)',
      `${result.requests.average.toFixed(0)} / ${result.requests.stddev.toFixed(0)} / ${result.requests.min}`,
    ],
    ['latency p50', `${result.latency.p50} ms`],
    ['latency p90', `${result.latency.p90} ms`],
    ['latency p95', `${percentile(0.95)} ms`],
    ['latency p99', `${result.latency.p99} ms`],
    ['latency max', `${result.latency.max} ms`],
    ['throughput', `${(result.throughput.average / 2 ** 20).toFixed(2)} MiB/s`],
    ['connection errors', String(result.errors)],
    ['timeouts', String(result.timeouts)],
    ['non-2xx', String(result.non2xx)],
    ['GraphQL errors', String(graphqlErrors)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`);
  return result.errors + result.timeouts + result.non2xx + graphqlErrors > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
