import net from 'node:net';
import { columns, concurrentColumns, record, sleep, type Finding, type FindingContext } from './finding.ts';
import { requestHead, send, type Exchange } from './http.ts';
import { mb, rssMb } from './measure.ts';

const SOCKETS = 20;
const READERS = 16;
const READ_SECONDS = 10;
const BROWSER = { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' };

/** Opens a connection, asks for the page and never reads: the answer piles up in the server. */
function stalledReader(base: string): net.Socket {
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname);
  socket.pause();
  socket.on('error', () => {});
  socket.write(requestHead('GET /graphql HTTP/1.1', { Host: `${hostname}:${port}`, Accept: 'text/html' }));
  return socket;
}

/**
 * 6. The GraphiQL page, served without a token: its size on the wire, what
 * readers that never read cost the server in memory, and what a crowd of page
 * readers does to an ordinary client's latency.
 */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  for (const [label, headers] of [
    ['Accept: text/html', { accept: 'text/html' }],
    ['Accept: text/html, Accept-Encoding: br, gzip', { accept: 'text/html', 'accept-encoding': 'br, gzip' }],
  ] as const) {
    await record(ctx, { finding: '6', sent: `GET /graphql ${label}` }, async () => {
      const x = await send(target.base, { path: '/graphql', headers });
      return {
        ...columns(x),
        notes: `bytes on the wire; Content-Encoding: ${x.headers['content-encoding'] ?? 'none'}`,
      };
    });
  }

  await record(ctx, { finding: '6', sent: `${SOCKETS} raw sockets send that GET and never read` }, async () => {
    const sockets = Array.from({ length: SOCKETS }, () => stalledReader(target.base));
    await sleep(3_000);
    const during = rssMb(target.pid);
    for (const s of sockets) s.destroy();
    await sleep(2_000);
    const notes = 'RSS peak column: while open (after 3 s); RSS after: 2 s after closing them';
    return { status: '–', bytes: '–', ms: '–', rssPeak: mb(during), notes };
  });

  const sent = `${READERS} clients read the page in a loop for ${READ_SECONDS} s (browser Accept-Encoding), probe running`;
  const crowd = async () => {
    const until = Date.now() + READ_SECONDS * 1000;
    const answers: Exchange[] = [];
    const reader = async () => {
      while (Date.now() < until) answers.push(await send(target.base, { path: '/graphql', headers: BROWSER }));
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: READERS }, reader));
    const seconds = (performance.now() - started) / 1000;
    const bytes = answers.reduce((sum, x) => sum + x.bytes, 0);
    const notes = `${answers.length} pages, ${(bytes / 2 ** 20 / seconds).toFixed(0)} MiB/s`;
    return { ...concurrentColumns(answers, seconds * 1000), notes };
  };
  await record(ctx, { finding: '6', sent }, crowd, { load: true });
}

export const graphiql: Finding = { number: 6, title: 'GraphiQL page', run };
