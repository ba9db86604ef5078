import net from 'node:net';
import { columns, record, sleep, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL, requestHead } from './http.ts';
import { mb, rssMb } from './measure.ts';

const SOCKETS = 12;
/** Full-depth products: ~6 KB each on the bench catalogue, so 2000 make a 12 MB answer (needs MAX_PAGE_SIZE and GRAPHQL_MAX_COST raised). */
const FIRST = Number(process.env.ABUSE_BIG_PAGE ?? 2000);
const BIG = `{ products(first: ${FIRST}) { data { id name sku steps { id name order components { id name customisations { id name type price } } } } } }`;

/** POSTs the big query and never reads; 'close' is only seen once it reads, so closedAt is filled by drain(). */
function stalledGraphQL(base: string, token: string) {
  const { hostname, port } = new URL(base);
  const body = JSON.stringify({ query: BIG });
  const socket = net.connect(Number(port), hostname);
  socket.pause();
  socket.on('error', () => {});
  socket.write(
    requestHead('POST /graphql HTTP/1.1', {
      Host: `${hostname}:${port}`,
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
    }) + body,
  );
  return socket;
}

/** Reads what is left, for at most ms: how many bytes came, and whether the server had closed it. */
function drain(socket: net.Socket, ms: number): Promise<{ bytes: number; closed: boolean }> {
  return new Promise((resolve) => {
    let bytes = 0;
    const timer = setTimeout(() => resolve({ bytes, closed: false }), ms);
    socket.on('data', (c: Buffer) => (bytes += c.length));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ bytes, closed: true });
    });
    socket.resume();
  });
}

/**
 * 8. Issue 20, finding 6: clients that ask for a multi-MB /graphql answer and never read it. RSS is read
 * before, while they stay open, and after `hold` seconds; then each reads what is left: a socket the
 * server cut ends short.
 */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  const token = target.tokens[0];
  await record(
    ctx,
    { finding: '8', sent: `one reader: POST /graphql products(first: ${FIRST}) full depth` },
    async () => {
      const x = await postGraphQL(target.base, token, { query: BIG });
      return { ...columns(x), notes: 'the answer the stalled sockets ask for' };
    },
  );
  const holdSeconds = Number(process.env.ABUSE_HOLD_SECONDS ?? 12);
  await record(
    ctx,
    {
      finding: '8',
      sent: `${SOCKETS} raw sockets POST that query and never read, held ${holdSeconds} s, probe running`,
    },
    async () => {
      const sockets = Array.from({ length: SOCKETS }, () => stalledGraphQL(target.base, token));
      await sleep(3_000);
      const during = rssMb(target.pid);
      await sleep(holdSeconds * 1000 - 3_000);
      const held = rssMb(target.pid);
      const ends = await Promise.all(sockets.map((s) => drain(s, 5_000)));
      for (const s of sockets) s.destroy();
      const cut = ends.filter((e) => e.closed).length;
      const bytes = ends.reduce((sum, e) => sum + e.bytes, 0);
      const notes =
        `RSS peak column: after 3 s; RSS at ${holdSeconds} s (sockets still open, unread): ${mb(held)} MB; ` +
        `then read: ${cut} of ${SOCKETS} already closed by the server, ${(bytes / 2 ** 20).toFixed(1)} MiB received in all`;
      return { status: '–', bytes: String(bytes), ms: '–', rssPeak: mb(during), notes };
    },
    { load: true },
  );
}

export const slowReaders: Finding = { number: 8, title: 'Slow readers of /graphql (issue 20, finding 6)', run };
