/**
 * What the GraphiQL page costs the service: the bytes sent for the page and every
 * asset it references (no encoding, br, gzip), and the server's resident memory
 * while clients request the largest of them and never read the answer. Starts
 * the service as `npm start` does, on a temporary embedded database.
 *
 *   npx tsx scripts/measure/graphiql.ts [--sockets 20]
 *
 * Service settings pass through the environment, e.g. GRAPHIQL_MAX_CONCURRENT_SENDS=20.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseCommandLine } from '../lib/cli.ts';
import { residentBytes } from '../lib/proc.ts';
import { echoStderr, startServer, stopServer, type Server } from '../lib/service-process.ts';
import { ensureBuilt, serviceNodeArgs } from '../lib/start-command.ts';

const { values } = parseCommandLine(process.argv.slice(2), { sockets: { type: 'string', default: '20' } });
const SOCKETS = Number(values.sockets);

/** Status and body bytes exactly as they came over the wire (node:http does not decode). */
function get(port: number, urlPath: string, encoding: string) {
  return new Promise<{ status: number; bytes: number; body: Buffer }>((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (encoding !== 'identity') headers['accept-encoding'] = encoding;
    http
      .get({ host: '127.0.0.1', port, path: urlPath, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, bytes: body.length, body });
        });
      })
      .on('error', reject);
  });
}

function rssMiB(pid: number): number {
  const bytes = residentBytes(pid);
  if (bytes === undefined) throw new Error(`the service (pid ${pid}) is gone`);
  return bytes / 2 ** 20;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-graphiql-'));
// An empty DATABASE_URL counts as unset: the service must not take this shell's.
const env = { NODE_ENV: 'production', LOG_LEVEL: 'warn', DATA_DIR: dataDir, DATABASE_URL: '' };
let server: Server | undefined;
const sockets: net.Socket[] = [];
try {
  ensureBuilt();
  server = await startServer('service', serviceNodeArgs(), env, 'GraphiQL: ');
  echoStderr(server);
  const pid = server.child.pid!;
  const port = Number(new URL(server.url).port);

  // The page, then every /graphql/assets/ URL named by anything already fetched.
  const queue = ['/graphql'];
  const sizes = new Map<string, Record<string, number>>();
  for (const url of queue) {
    const row: Record<string, number> = {};
    for (const encoding of ['identity', 'br', 'gzip']) {
      const res = await get(port, url, encoding);
      if (res.status !== 200) throw new Error(`${url} (${encoding}): ${res.status}`);
      row[encoding] = res.bytes;
      if (encoding !== 'identity') continue;
      for (const [found] of res.body.toString('latin1').matchAll(/\/graphql\/assets\/[\w.-]+/g)) {
        if (!queue.includes(found)) queue.push(found);
      }
    }
    sizes.set(url, row);
  }
  const total = { identity: 0, br: 0, gzip: 0 };
  console.log(`machine: ${os.cpus().length} cores, Node ${process.version}\n`);
  console.log('bytes sent                   no encoding          br        gzip');
  for (const [url, row] of sizes) {
    for (const k of ['identity', 'br', 'gzip'] as const) total[k] += row[k]!;
    console.log(
      `${url.padEnd(50)} ${String(row.identity).padStart(10)} ${String(row.br).padStart(11)} ${String(row.gzip).padStart(11)}`,
    );
  }
  console.log(
    `${'total'.padEnd(50)} ${String(total.identity).padStart(10)} ${String(total.br).padStart(11)} ${String(total.gzip).padStart(11)}`,
  );

  // Clients that ask for the largest resource without compression and never read.
  const [largest] = [...sizes].sort((a, b) => b[1].identity! - a[1].identity!)[0]!;
  await sleep(1000);
  const before = rssMiB(pid);
  for (let i = 0; i < SOCKETS; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    socket.write(`GET ${largest} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\n\r\n`);
    socket.on('error', () => {});
    sockets.push(socket);
  }
  let peak = before;
  for (let i = 0; i < 20; i++) {
    await sleep(150);
    peak = Math.max(peak, rssMiB(pid));
  }
  // Now read just the status line of each, to say how many the service took on.
  const statuses = await Promise.all(
    sockets.map(
      (s) =>
        new Promise<string>((resolve) => {
          s.once('data', (c: Buffer) => resolve(c.toString('latin1').split(' ')[1] ?? '?'));
          s.once('close', () => resolve('closed'));
          s.resume();
        }),
    ),
  );
  const counts = Object.entries(
    statuses.reduce<Record<string, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {}),
  );
  console.log(`\nserver RSS with ${SOCKETS} clients requesting ${largest} (no encoding) and never reading:`);
  console.log(`  before ${before.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (+${(peak - before).toFixed(0)} MiB)`);
  console.log(`  answers: ${counts.map(([s, n]) => `${n} × ${s}`).join(', ')}`);
} finally {
  for (const s of sockets) s.destroy();
  if (server) await stopServer(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
