import net from 'node:net';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { tokenFor } from '../support/edge.ts';
import { request } from '../support/raw-http.ts';

// A client that asks for a large answer and never reads it must not hold that answer in the
// server's memory for as long as it keeps the connection open (issue 20, finding 6).

const PRODUCTS = 12;
const NAME_BYTES = 1024 * 1024;
/** About 12 MB of JSON: far more than the kernel buffers of a loopback connection take (4 MB sending, 128 KB receiving). */
const BIG = `{ products(first: ${PRODUCTS}) { data { name } } }`;
// Long enough that only the send bounds can be what closes a connection.
const PATIENT = {
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '600000',
  HTTP_REQUEST_TIMEOUT_MS: '600000',
  RESPONSE_CACHE_MAX_ENTRIES: '0',
  // The answer must be larger than the kernel buffers; the default bound on an answer's weight would refuse it.
  GRAPHQL_MAX_ANSWER_BYTES: String(64 * 1024 * 1024),
};

const apps: TestApp[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const t of apps.splice(0)) await t.close();
});

async function startWithBigAnswer(env: Record<string, string>): Promise<{ t: TestApp; token: string }> {
  const t = await startTestApp({ env: { ...PATIENT, ...env } });
  apps.push(t);
  const name = 'x'.repeat(NAME_BYTES);
  for (let i = 0; i < PRODUCTS; i++) {
    await sql`INSERT INTO products (name, sku) VALUES (${name}, ${`BIG-${i}`})`.execute(t.database.handle.db);
  }
  return { t, token: await tokenFor(t) };
}

/** POSTs the query on a raw connection and never reads, until readRest() reads what is left and the close. */
function neverRead(t: TestApp, token: string, query: string) {
  const url = new URL(t.url);
  const body = JSON.stringify({ query });
  const socket = net.connect(Number(url.port), url.hostname);
  sockets.push(socket);
  socket.pause();
  socket.on('error', () => {});
  socket.write(
    `POST /graphql HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return {
    /** Everything the server still sends, once the client reads: resolves when the connection closes. */
    readRest(): Promise<{ status: number; bodyBytes: number; declared: number }> {
      let received = '';
      socket.setEncoding('latin1').on('data', (c: string) => (received += c));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.resume();
      return closed.then(() => {
        const end = received.indexOf('\r\n\r\n');
        const head = received.slice(0, end);
        return {
          status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0),
          bodyBytes: received.length - end - 4,
          declared: Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN),
        };
      });
    },
  };
}

type LogLine = { msg: string; reason?: string; sendingMs?: number };
const cutLines = (t: TestApp, reason: string) =>
  t.logs.lines
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => l.msg === 'slow client cut off' && l.reason === reason);

describe('responses to clients that never read', () => {
  it('are cut at RESPONSE_SEND_TIMEOUT_MS, while other clients are served', async () => {
    const { t, token } = await startWithBigAnswer({
      RESPONSE_SEND_TIMEOUT_MS: '1000',
      RESPONSE_STALL_TIMEOUT_MS: '600000',
      RESPONSE_MAX_BUFFERED_BYTES: String(1024 * 1024 * 1024),
    });
    const stalled = Array.from({ length: 3 }, () => neverRead(t, token, BIG));
    // Meanwhile an ordinary client is answered, and so is a REST route.
    const other = await tokenFor(t);
    const served = await request(t.url, '/graphql', {
      method: 'POST',
      token: other,
      body: { query: '{ __typename }' },
    });
    expect(served.status).toBe(200);
    expect((await request(t.url, '/health')).status).toBe(200);
    // The server lets go of them, though they keep their end open (keep-alive and request timeouts: 10 min).
    await expect.poll(() => cutLines(t, 'send timeout').length, { timeout: 30_000 }).toBe(3);
    for (const line of cutLines(t, 'send timeout')) expect(line.sendingMs).toBeGreaterThanOrEqual(1000);
    // What a client still gets once it reads: the head, part of the body, then the close.
    for (const { status, bodyBytes, declared } of await Promise.all(stalled.map((s) => s.readRest()))) {
      expect(status).toBe(200);
      expect(bodyBytes).toBeLessThan(declared);
    }
  });

  it('holding more than RESPONSE_MAX_BUFFERED_BYTES with no progress are cut long before the send timeout', async () => {
    const { t, token } = await startWithBigAnswer({
      RESPONSE_SEND_TIMEOUT_MS: '600000',
      RESPONSE_STALL_TIMEOUT_MS: '300',
      RESPONSE_MAX_BUFFERED_BYTES: String(1024 * 1024),
    });
    const stalled = neverRead(t, token, BIG);
    await expect.poll(() => cutLines(t, 'stalled with a full buffer').length, { timeout: 10_000 }).toBe(1);
    const { bodyBytes, declared } = await stalled.readRest();
    expect(bodyBytes).toBeLessThan(declared);
    // A client that reads gets the whole answer under the same bounds.
    const read = await request(t.url, '/graphql', { method: 'POST', token, body: { query: BIG } });
    expect(read.status).toBe(200);
    expect(read.json().data.products.data).toHaveLength(PRODUCTS);
  });
});
