import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { postGraphQL, send, type Exchange } from '../abuse/http.ts';
import { rssMb } from '../abuse/measure.ts';
import { parseCommandLine, parseWholeNumber, runCli } from '../lib/cli.ts';
import { ensureDatabase, prepareDataset, revokeToken } from '../lib/dataset.ts';
import { startServer, stopServer, type Server } from '../lib/service-process.ts';
import { ensureBuilt, serviceNodeArgs } from '../lib/start-command.ts';
import { percentile } from '../lib/stats.ts';

/**
 * npm run measure:answer-flood [-- --service-dir DIR] [--concurrent 16] [--rounds 2] [--products 300] [--profile DIR]
 *
 * Issue 30, item 2: a read-only token sends `configure` aliased 15 times, each with 1,000 distinct
 * 1,000-character customisation ids (a 1 MB body, every request's ids its own so no cache shares them):
 * once alone, then `--concurrent` at once, `--rounds` times, while another user asks for product(id) every
 * 100 ms. Prints the service's RSS, the other user's latency, the 503s and how often the service declared
 * its change listener lost. --service-dir runs another checkout's service (built there) on the same
 * database, so "before" and "after" come from this one command. --profile DIR: the service runs with
 * `node --cpu-prof` and leaves its profile there (read it with scripts/bench/profile-summary.ts).
 */

const OPTIONS = {
  'service-dir': { type: 'string' },
  concurrent: { type: 'string', default: '16' },
  rounds: { type: 'string', default: '2' },
  products: { type: 'string', default: '300' },
  profile: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

const ALIASES = 15;
const IDS = 1000;
const ID_LENGTH = 1000;
const LOST = 'change notifications lost';
const UNAVAILABLE = 'database unavailable';
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Request `n`'s body: 15 aliases sharing one variable of 1,000 ids no other request sends. */
function floodBody(n: number, productId: string): string {
  const field = 'configure(productId: $p, selections: $s) { valid violations { code message customisationId } }';
  const query = `query Flood($p: ID!, $s: [SelectionInput!]!) { ${Array.from({ length: ALIASES }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
  const s = Array.from({ length: IDS }, (_, i) => ({ customisationId: `${n}-${i}-`.padEnd(ID_LENGTH, 'x') }));
  return JSON.stringify({ query, variables: { p: productId, s } });
}

/** The service's log lines that matter here, counted as they come. */
function countLines(server: Server) {
  const counts = { lost: 0, unavailable: 0 };
  let partial = '';
  server.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (line.includes(LOST)) counts.lost++;
      if (line.includes(UNAVAILABLE)) counts.unavailable++;
    }
  });
  return counts;
}

/** Another user's product(id) every 100 ms on a kept-alive connection, until stopped. */
function startProbe(base: string, token: string, productIds: string[]) {
  const agent = new http.Agent({ keepAlive: true });
  const results: Exchange[] = [];
  const inFlight = new Set<Promise<unknown>>();
  let n = 0;
  const fire = () => {
    const id = productIds[n++ % productIds.length]!;
    const p = postGraphQL(base, token, { query: `{ product(id: "${id}") { id name } }` }, { agent, timeoutMs: 60_000 });
    inFlight.add(p);
    void p.then((x) => results.push(x)).finally(() => inFlight.delete(p));
  };
  fire();
  const timer = setInterval(fire, 100);
  return async () => {
    clearInterval(timer);
    await Promise.all(inFlight);
    agent.destroy();
    return results;
  };
}

const statuses = (xs: readonly Exchange[]) => {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(String(x.status || x.error), (counts.get(String(x.status || x.error)) ?? 0) + 1);
  return [...counts].map(([s, c]) => `${s} ×${c}`).join(', ');
};
const mib = (bytes: number) =>
  bytes < 2 ** 20 ? `${bytes.toLocaleString('en-US')} B` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function main(): Promise<number> {
  const { values: opts } = parseCommandLine(process.argv.slice(2), OPTIONS);
  if (opts.help) {
    process.stdout.write(
      `npm run --silent measure:answer-flood -- [--service-dir DIR] [--concurrent N] [--rounds N] [--products N]\n`,
    );
    return 0;
  }
  const concurrent = parseWholeNumber('--concurrent', opts.concurrent, { min: 1, max: 256 });
  const rounds = parseWholeNumber('--rounds', opts.rounds, { min: 1, max: 100 });
  const products = parseWholeNumber('--products', opts.products, { min: 1, max: 100_000 });
  const serviceDir = opts['service-dir'] ? path.resolve(opts['service-dir']) : undefined;
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/pcs_answer_flood';

  await ensureDatabase(databaseUrl);
  const users = [
    { email: 'flood-a@flood.invalid', name: 'Flood', tokenName: 'flood' },
    { email: 'flood-b@flood.invalid', name: 'Other user', tokenName: 'flood' },
  ];
  const dataset = await prepareDataset(databaseUrl, products, log, users);
  ensureBuilt(serviceDir);
  const env = { DATABASE_URL: databaseUrl, NODE_ENV: 'production', LOG_LEVEL: 'info', WEB_CONCURRENCY: '1' };
  const profile = opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.profile)}`] : [];
  const server = await startServer(
    'service',
    [...profile, ...serviceNodeArgs(serviceDir)],
    env,
    'GraphiQL: ',
    serviceDir,
  );
  try {
    const lines = countLines(server);
    const [attacker, other] = dataset.tokens.map((t) => t.token) as [string, string];
    const minted = await send(server.url, {
      method: 'POST',
      path: '/api/v1/tokens',
      body: JSON.stringify({ name: 'flood-read-only', abilities: ['catalog:read'] }),
      headers: { authorization: `Bearer ${attacker}`, 'content-type': 'application/json' },
      keepBody: true,
    });
    const readOnly = (JSON.parse(minted.body!) as { data: { token: string } }).data.token;
    const productId = dataset.productIds[0]!;
    const pid = server.child.pid;

    const alone = await postGraphQL(server.url, readOnly, floodBody(0, productId), { timeoutMs: 120_000 });
    const rssBefore = rssMb(pid);
    let peak = rssBefore ?? 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid) ?? 0)), 100);
    const stopProbe = startProbe(server.url, other, dataset.productIds);
    const started = performance.now();
    const flood: Exchange[] = [];
    for (let round = 0; round < rounds; round++) {
      const bodies = Array.from({ length: concurrent }, (_, i) => floodBody(1 + round * concurrent + i, productId));
      flood.push(
        ...(await Promise.all(bodies.map((b) => postGraphQL(server.url, readOnly, b, { timeoutMs: 120_000 })))),
      );
    }
    const floodMs = performance.now() - started;
    const probes = await stopProbe();
    clearInterval(sampler);
    const answered = probes.filter((p) => p.status === 200).map((p) => p.ms);
    answered.sort((a, b) => a - b);

    const where = serviceDir ? `service from ${serviceDir}` : 'service from this checkout';
    const load = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    process.stdout.write(
      `# Answer flood (issue 30, item 2): ${where}\n\n` +
        `- ${os.cpus().length} cores, load average ${load}, Node ${process.version}; ${products} products\n` +
        `- one request: ${ALIASES} aliased configure × ${IDS} distinct ${ID_LENGTH}-character ids, ${mib(alone.requestBytes)} sent\n\n` +
        `| measure | value |\n|---|---|\n` +
        `| one request alone | HTTP ${alone.status || alone.error}, ${mib(alone.bytes)} answered, ${alone.ms} ms |\n` +
        `| flood: ${concurrent} at once × ${rounds} rounds | ${statuses(flood)}; ${mib(flood.reduce((n, x) => n + x.bytes, 0))} answered in ${Math.round(floodMs)} ms |\n` +
        `| service RSS before / peak | ${rssBefore?.toFixed(0)} / ${peak.toFixed(0)} MB |\n` +
        `| other user's product(id), every 100 ms | ${statuses(probes)}; p50 ${percentile(answered, 50)} ms, max ${answered.at(-1)} ms |\n` +
        `| 503 answers (flood + other user) | ${[...flood, ...probes].filter((x) => x.status === 503).length} |\n` +
        `| log lines "${LOST}" / "${UNAVAILABLE}" | ${lines.lost} / ${lines.unavailable} |\n`,
    );
    return 0;
  } finally {
    await stopServer(server);
    await Promise.all(dataset.tokens.map((t) => revokeToken(databaseUrl, t.tokenId)));
  }
}

runCli(main);
