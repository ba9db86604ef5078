import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Slow and idle clients must not hold sockets. The timeouts are set low here so
 * the server's own clock does the work; the bounds asserted are the configured
 * timeout plus Node's connection-check interval and generous slack.
 */

const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1000;
const KEEP_ALIVE_TIMEOUT_MS = 300;
// Below every default (10 s, 30 s, 5 s), so a setting that did not apply fails the test.
const SLACK_MS = 3000;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    env: {
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    },
  });
});
afterAll(() => t.close());

interface Conversation {
  socket: net.Socket;
  received: () => string;
  /** Resolves with the time from `start` to the server closing the connection. */
  closed: Promise<number>;
  start: number;
}

function connect(): Promise<Conversation> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      let data = '';
      const start = Date.now();
      socket.on('data', (chunk) => (data += chunk.toString('latin1')));
      const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now() - start)));
      resolve({ socket, received: () => data, closed, start });
    });
    socket.on('error', reject);
  });
}

/** Writes `lines` one every `intervalMs` until the socket closes (a slowloris client). */
function trickle(socket: net.Socket, next: (i: number) => string, intervalMs: number): () => void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded) return clearInterval(timer);
    socket.write(next(i++), () => undefined);
  }, intervalMs);
  return () => clearInterval(timer);
}

describe('connection timeouts', () => {
  it('closes a connection whose request head never completes (slowloris), with 408', async () => {
    const c = await connect();
    c.socket.on('error', () => undefined);
    c.socket.write('POST /graphql HTTP/1.1\r\nHost: localhost\r\n');
    // Keeps the socket busy with a new header line every 100 ms: only a deadline
    // on the whole head, not an idle timer, ends this.
    const stop = trickle(c.socket, (i) => `X-Padding-${i}: a\r\n`, 100);
    const elapsed = await c.closed;
    stop();
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  it('closes a connection whose body trickles in slower than the request timeout allows', async () => {
    const c = await connect();
    c.socket.on('error', () => undefined);
    c.socket.write(
      'POST /api/v1/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const stop = trickle(c.socket, () => ' ', 100);
    const elapsed = await c.closed;
    stop();
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const c = await connect();
    c.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    const elapsed = await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(elapsed).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + SLACK_MS);
  });
});

describe('timeout settings', () => {
  it('have defaults and are validated', () => {
    const config = loadConfig({});
    expect(config.http.headersTimeoutMs).toBe(10_000);
    expect(config.http.requestTimeoutMs).toBe(30_000);
    expect(config.http.keepAliveTimeoutMs).toBe(5_000);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '30000' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: 'soon' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_MS/);
  });
});
