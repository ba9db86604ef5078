import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { createRng } from '../db/seeds/catalog.ts';
import { QUERIES } from './bench/queries.ts';
import { zipfSampler } from './bench/zipf.ts';
import { createClient, Editor, type Client } from './loadtest/editor.ts';
import {
  failures,
  printComparison,
  printNeighbours,
  printTable,
  type Phase,
  type RunDescription,
} from './loadtest/report.ts';
import { sampleCatalog as sampleCatalogOf } from './loadtest/sample.ts';
import { startStorm, type StormTotals } from './loadtest/storm.ts';

/**
 * A load test against any running instance, for users of the service:
 *
 *   npm run loadtest -- --url http://127.0.0.1:4000 --token '<id>|<secret>' \
 *     --query mix|product|page --distribution zipf|uniform --connections 50 --duration 30 \
 *     [--writes N [--write-token T] [--compare]]
 *
 * `product` asks product(id) at full depth, `page` asks products(first: 20, after) at
 * full depth, `mix` sends 78 % pages and 22 % products (a storefront's read-heavy mix).
 * Ids and cursors are collected first by walking up to --sample products with the same
 * token, then drawn Zipf-like (s = 1: a few are popular, most are rare) or uniformly.
 * `--writes N` adds a catalogue editor (loadtest/editor.ts) saving N price changes a second on
 * customisations of the sampled products, drawn the same way, with an admin's token; its writes
 * are timed apart from the readers'. `--compare` runs the readers alone, then with the editor,
 * and prints both and their ratios. Prints progress every second and a summary; exits 1 when any
 * request failed (connection error, timeout, non-2xx or a GraphQL error in the body) or any
 * write conflicted.
 *
 * `--tenants` measures noisy neighbours: the readers are one customer company's (--host, the Host
 * they send), measured alone, then beside another company's storm (loadtest/storm.ts: --storm-host,
 * --storm-tokens of several of its users, --storm-connections, and its editor at --writes a second
 * with --storm-write-token). Prints the readers' figures alone and beside it, their p95 ratio, and
 * the storm's answers by status and its 429s by message; exits 1 only when the readers failed.
 * scripts/loadtest/tenants-stage.ts sets the stage on a scratch database and prints the command.
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
    writes: { type: 'string', default: '0' },
    'write-token': { type: 'string' },
    compare: { type: 'boolean', default: false },
    host: { type: 'string' },
    tenants: { type: 'boolean', default: false },
    'storm-host': { type: 'string' },
    'storm-tokens': { type: 'string' },
    'storm-write-token': { type: 'string' },
    'storm-connections': { type: 'string', default: '192' },
    help: { type: 'boolean', default: false },
  },
});

const writesPerSecond = Number(opts.writes);
if (
  opts.help ||
  !opts.token ||
  !['mix', 'product', 'page'].includes(opts.query) ||
  !['zipf', 'uniform'].includes(opts.distribution) ||
  !(writesPerSecond >= 0 && writesPerSecond <= 1000) ||
  (opts.compare && writesPerSecond === 0) ||
  (opts.tenants && (!opts['storm-host'] || !opts['storm-tokens']))
) {
  console.error(
    'usage: npm run loadtest -- --url U --token T [--query mix|product|page] [--distribution zipf|uniform] [--connections 50] [--duration 30] [--sample 10000]\n' +
      '         [--writes N [--write-token W] [--compare]]\n' +
      '  T is a bearer token from POST /api/v1/login (or npm run admin).\n' +
      '  --writes N: an editor changes N customisation prices a second beside the readers (W: an admin token\n' +
      '  with catalog:write; default T when T is one). --compare: the readers alone, then with the writes.\n' +
      '       npm run loadtest -- --tenants --url U --host H --token T --storm-host S --storm-tokens T1,T2,...\n' +
      '         [--storm-write-token W --writes N] [--storm-connections 192]\n' +
      "  the readers (H's) alone, then beside a storm of S's tokens (the first user's three first) and W's writes.",
  );
  process.exit(opts.help ? 0 : 2);
}

const base = opts.url.replace(/\/+$/, '');
const endpoint = `${base}/graphql`;
const headers = {
  'content-type': 'application/json',
  accept: 'application/json',
  authorization: `Bearer ${opts.token}`,
  ...(opts.host ? { host: opts.host } : {}),
};
const connections = Number(opts.connections);
const duration = Number(opts.duration);
const client = createClient(endpoint, opts.host);
const readToken = opts.token;

/** Product ids and page cursors of the readers' catalogue (loadtest/sample.ts). */
const sampleCatalog = (limit: number, from = { client, token: readToken }) =>
  sampleCatalogOf(from.client, from.token, limit);

/** A bad option found only by asking the service: exit 2, as for bad options. */
class UsageError extends Error {}

/** The editor's token: --write-token, else --token when it may write the catalogue. */
async function writeToken(
  as: { client: Client; option: 'write-token' | 'storm-write-token' } = { client, option: 'write-token' },
): Promise<string> {
  const token = opts[as.option] ?? readToken;
  const { me } = await as.client<{ me: { user: { isAdmin: boolean }; token: { abilities: string[] } } }>(
    token,
    '{ me { user { isAdmin } token { abilities } } }',
    {},
  );
  const abilities = me.token.abilities;
  if (me.user.isAdmin && (abilities.includes('*') || abilities.includes('catalog:write'))) return token;
  const which = opts[as.option] ? `--${as.option}` : '--token';
  throw new UsageError(
    `--writes needs a token with catalog:write: ${which} is ${me.user.isAdmin ? 'an admin token without catalog:write' : 'not an admin token'} (give an admin's token with --write-token)`,
  );
}

/** One run of the readers for --duration seconds, with the editor writing beside them when given. */
async function runPhase(
  label: string,
  next: () => string,
  editor?: Editor,
  beside?: () => { stop(): Promise<StormTotals> },
): Promise<Phase> {
  process.stderr.write(`${label}\n`);
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
  const editing = editor?.start(writesPerSecond);
  const neighbour = beside?.();
  const latencies: number[] = [];
  instance.on('response', (_client, _status, _bytes, responseTime: number) => {
    total++;
    latencies.push(responseTime);
  });
  instance.on('tick', () => {
    second++;
    const writes = editing
      ? `  ${editing.phase.done} writes, ${editing.phase.conflicts} conflicts, ${editing.phase.errors} write errors`
      : '';
    process.stderr.write(
      `  ${String(second).padStart(4)} s  ${String(total - lastTotal).padStart(6)} req/s  ${String(total).padStart(8)} total  ${graphqlErrors} GraphQL errors${writes}\n`,
    );
    lastTotal = total;
  });
  const stop = () => instance.stop();
  process.once('SIGINT', stop);
  const result = await new Promise<Result>((resolve) => instance.once('done', resolve));
  process.off('SIGINT', stop);
  const editorPhase = await editing?.stop();
  const storm = await neighbour?.stop();
  latencies.sort((a, b) => a - b);
  editorPhase?.latencies.sort((a, b) => a - b);
  if (editorPhase?.firstError) process.stderr.write(`  first failed write: ${editorPhase.firstError}\n`);
  process.stderr.write('\n');
  return {
    label,
    result,
    latencies,
    graphqlErrors,
    ...(editorPhase ? { editor: editorPhase } : {}),
    ...(storm ? { storm } : {}),
  };
}

/** --tenants: the storm company's catalogue sampled, its editor opened; start() unleashes it. */
async function prepareStorm(draw: (items: string[], random: () => number) => () => string) {
  const stormClient = createClient(endpoint, opts['storm-host']);
  const tokens = opts['storm-tokens']!.split(',').filter(Boolean);
  const sampled = await sampleCatalog(Number(opts.sample), { client: stormClient, token: tokens[0]! });
  let editor: Editor | undefined;
  if (writesPerSecond > 0) {
    if (!opts['storm-write-token']) throw new UsageError('--tenants with --writes needs --storm-write-token');
    const token = await writeToken({ client: stormClient, option: 'storm-write-token' });
    const edited = draw(sampled.ids, createRng(44));
    editor = await Editor.open(
      stormClient,
      token,
      Array.from({ length: Math.ceil(writesPerSecond * duration) }, edited),
    );
  }
  process.stderr.write(
    `storm: ${tokens.length} tokens, ${opts['storm-connections']} connections, ${sampled.ids.length} products, ${writesPerSecond} writes/s\n`,
  );
  const start = () =>
    startStorm({
      endpoint,
      host: opts['storm-host']!,
      tokens,
      connections: Number(opts['storm-connections']),
      cursors: sampled.cursors,
      editor,
      writesPerSecond,
    });
  return { start, editor };
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
  const draw = <T>(items: T[], random: () => number) => {
    if (opts.distribution === 'uniform') return () => items[Math.floor(random() * items.length)]!;
    const rank = zipfSampler(items.length, 1, random);
    return () => items[rank()]!;
  };
  const product = draw(products, rng);
  const page = draw(pages, rng);
  const next =
    opts.query === 'product' ? product : opts.query === 'page' ? page : () => (rng() < 0.78 ? page() : product());

  let editor: Editor | undefined;
  const storm = opts.tenants ? await prepareStorm(draw) : undefined;
  if (writesPerSecond > 0 && !storm) {
    const token = await writeToken();
    // The editor works on the products the readers read, drawn the same way (its own stream).
    const edited = draw(ids, createRng(43));
    const draws = Array.from({ length: Math.max(1, Math.ceil(writesPerSecond * duration)) }, edited);
    editor = await Editor.open(client, token, draws);
    process.stderr.write(`editor: ${writesPerSecond} writes/s over ${editor.productCount} products\n`);
  }
  process.stderr.write(
    `${opts.query} (${opts.distribution}): ${products.length} products, ${pages.length} pages, ${connections} connections, ${duration} s\n\n`,
  );

  const phases: Phase[] = [];
  let restoreFailed = 0;
  try {
    if (storm) {
      phases.push(await runPhase('readers alone', next));
      phases.push(await runPhase('readers beside the storm', next, undefined, storm.start));
    } else {
      if (opts.compare) phases.push(await runPhase('readers alone', next));
      phases.push(await runPhase(editor ? `readers + ${writesPerSecond} writes/s` : 'readers', next, editor));
    }
  } finally {
    editor ??= storm?.editor;
    if (editor) {
      const restored = await editor.restore();
      restoreFailed = restored.failed;
      process.stderr.write(
        `editor: put back ${restored.restored} prices${restored.failed ? `, ${restored.failed} failed: ${restored.firstError}` : ''}\n`,
      );
    }
  }

  const run: RunDescription = {
    query: opts.query as RunDescription['query'],
    distribution: opts.distribution,
    connections,
    duration,
    writesPerSecond,
  };
  if (storm) {
    printNeighbours(run, phases[0]!, phases[1]!, Number(opts['storm-connections']));
    // The storm is meant to be refused: only the readers' failures (and the editor's put-back) count.
    return phases.reduce((n, p) => n + failures(p), 0) + restoreFailed > 0 ? 1 : 0;
  }
  if (opts.compare) printComparison(run, phases[0]!, phases[1]!);
  else printTable(run, phases[0]!);
  const failed = phases.reduce((n, p) => n + failures(p) + (p.editor ? p.editor.errors + p.editor.conflicts : 0), 0);
  return failed + restoreFailed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
