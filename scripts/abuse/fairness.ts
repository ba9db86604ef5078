import http from 'node:http';
import { percentile } from '../lib/stats.ts';
import { concurrentColumns, record, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL, send, type Exchange } from './http.ts';

const TOKENS = 8;
const PER_TOKEN = 16;
const FULL = 'id name sku steps { id name order components { id name customisations { id name type price } } }';
const PAGE = `query Page($after: String) { products(first: 100, after: $after) { data { ${FULL} } } }`;
/** A page of a size and start of the caller's choosing: a distinct cache key per (n, after). */
const ONE_OFF = `query Page($after: String, $n: Int) { products(first: $n, after: $after) { data { ${FULL} } } }`;

/** Cursors of real positions, read page by page (100 ids a page): unique keys for the cache that all run. */
async function cursors(ctx: FindingContext, count: number): Promise<(string | null)[]> {
  const out: (string | null)[] = [null];
  let after: string | null = null;
  const query =
    'query ($after: String) { products(first: 10, after: $after) { paginatorInfo { endCursor hasMorePages } } }';
  while (out.length < count) {
    const res = await postGraphQL(
      ctx.target.base,
      ctx.target.tokens[1],
      { query, variables: { after } },
      { keepBody: true },
    );
    const info = (
      JSON.parse(res.body!) as { data: { products: { paginatorInfo: { endCursor: string; hasMorePages: boolean } } } }
    ).data.products.paginatorInfo;
    if (!info.hasMorePages) break;
    out.push((after = info.endCursor));
  }
  return out;
}

const p50 = (xs: Exchange[]) =>
  percentile(
    xs.map((x) => x.ms).sort((a, b) => a - b),
    50,
  );

/** 9. Issue 20, finding 7: one user with many tokens, a flood of one-off queries, made-up operation names. */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    const res = await send(target.base, {
      method: 'POST',
      path: '/api/v1/tokens',
      body: JSON.stringify({ name: `abuse-fair-${i}` }),
      headers: { authorization: `Bearer ${target.tokens[0]}`, 'content-type': 'application/json' },
      keepBody: true,
    });
    if (res.status !== 201) throw new Error(`minting a token: HTTP ${res.status} ${res.body?.slice(0, 120)}`);
    tokens.push((JSON.parse(res.body!) as { data: { token: string } }).data.token);
  }
  const pages = await cursors(ctx, 60);

  await record(
    ctx,
    {
      finding: '9',
      sent: `${TOKENS} tokens of one user × ${PER_TOKEN} full pages (cache-busting cursors) at once; another user probes`,
    },
    async () => {
      const started = performance.now();
      let k = 0;
      const flood = tokens.flatMap((token) =>
        Array.from({ length: PER_TOKEN }, () => {
          const variables = { n: 100 - (k % 40), after: pages[Math.floor(k++ / 40)] ?? null };
          return postGraphQL(target.base, token, { query: ONE_OFF, variables }, { agent });
        }),
      );
      // The other user (tokens[1]) asks for one product meanwhile, 20 times.
      const probes: Exchange[] = [];
      for (let i = 0; i < 20; i++) {
        const id = target.productIds[i % target.productIds.length]!;
        probes.push(
          await postGraphQL(target.base, target.tokens[1], {
            query: 'query ($id: ID!) { product(id: $id) { id name } }',
            variables: { id },
          }),
        );
      }
      const xs = await Promise.all(flood);
      const worst = Math.max(...probes.map((p) => p.ms));
      return {
        ...concurrentColumns(xs, performance.now() - started),
        notes: `other user's product(id) ×20 meanwhile: p50 ${p50(probes)} ms, max ${worst} ms`,
      };
    },
  );

  await record(
    ctx,
    { finding: '9', sent: '50 popular full pages asked twice, then 400 one-off full pages, then the 50 again' },
    async () => {
      const popular = pages.slice(0, 50);
      const ask = (after: string | null) =>
        postGraphQL(target.base, target.tokens[1], { query: PAGE, variables: { after } }, { agent });
      for (const after of popular) await ask(after);
      const warm: Exchange[] = [];
      for (const after of popular) warm.push(await ask(after));
      const started = performance.now();
      const flood: Exchange[] = [];
      for (let i = 0; i < 400; i++) {
        // Pages 10 to 13 as the start: no key of the fairness row above, 400 distinct keys.
        const variables = { after: pages[10 + Math.floor(i / 100)] ?? null, n: 1 + (i % 100) };
        flood.push(await postGraphQL(target.base, target.tokens[1], { query: ONE_OFF, variables }, { agent }));
      }
      const floodMs = performance.now() - started;
      const again: Exchange[] = [];
      for (const after of popular) again.push(await ask(after));
      const hitLike = (xs: Exchange[], ms: number) => xs.filter((x) => x.ms <= ms).length;
      const threshold = Math.max(5, 3 * p50(warm));
      return {
        ...concurrentColumns(
          again,
          again.reduce((s, x) => s + x.ms, 0),
        ),
        notes:
          `popular pages once warm: p50 ${p50(warm)} ms; after the flood (${flood.length} in ${Math.round(floodMs)} ms): ` +
          `p50 ${p50(again)} ms, ${hitLike(again, threshold)} of 50 answered as fast as a hit (≤ ${threshold} ms)`,
      };
    },
  );

  const metricsToken = process.env.METRICS_TOKEN;
  await record(
    ctx,
    { finding: '9', sent: '200 made-up operationNames on invalid documents, then query RealOne { __typename }' },
    async () => {
      const bad = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          postGraphQL(
            target.base,
            target.tokens[1],
            { query: `query Fake${i} { nope }`, operationName: `Fake${i}` },
            { agent },
          ),
        ),
      );
      await postGraphQL(target.base, target.tokens[1], {
        query: 'query RealOne { __typename }',
        operationName: 'RealOne',
      });
      if (!metricsToken)
        return { ...concurrentColumns(bad, 0), notes: 'labels not read: set METRICS_TOKEN in the shell' };
      const scrape = await send(target.base, {
        path: '/metrics',
        headers: { authorization: `Bearer ${metricsToken}` },
        keepBody: true,
      });
      const lines = (scrape.body ?? '')
        .split('\n')
        .filter((l) => l.startsWith('http_requests_total{') && l.includes('route="/graphql"'));
      const real = lines.find((l) => l.includes('operation="RealOne"'));
      const fake = lines.filter((l) => l.includes('operation="Fake')).length;
      const other = lines.find((l) => l.includes('operation="(other)"'));
      return {
        ...concurrentColumns(bad, 0),
        notes: `RealOne ${real ? 'has its own label' : `has none${other ? ' (counted as (other))' : ''}`}; ${fake} series labelled Fake*`,
      };
    },
  );
  agent.destroy();
}

export const fairness: Finding = {
  number: 9,
  title: 'Fairness, cache admission and metric labels (issue 20, finding 7)',
  run,
};
