import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { loadConfig } from '../../src/config.ts';
import { createAuthService } from '../../src/modules/auth/service.ts';
import { createDatabase } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { createTestDatabase } from '../support/database.ts';
import { startServerProcess, waitForStatus, type ServerProcess } from '../support/process.ts';

/**
 * SIGTERM to a real server process under load. "Accepted" means the server read
 * the request: it writes an access line for every request it read, with the id
 * the client sent. Each accepted request must get a complete response; a request
 * the server never read may be refused or reset (the listener is closed).
 */

let env: Record<string, string>;
let credentials: { email: string; password: string };
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const logger = createLogger('silent');
  const config = loadConfig({ NODE_ENV: 'test' });
  credentials = { email: 'shutdown@example.com', password: 'shutdown-test-password' };
  if (process.env.DATABASE_URL) {
    const database = await createTestDatabase();
    await seedCatalog(database.handle.db, { products: 5, seed: 5 });
    await createAuthService({ db: database.handle.db, config: config.auth, logger }).createUser({
      name: 'S',
      ...credentials,
      isAdmin: false,
    });
    env = { DATABASE_URL: database.url! };
    cleanup = () => database.drop();
  } else {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-shutdown-'));
    const database = await createDatabase({ databaseUrl: undefined, dataDir: dir, poolSize: 1, logger });
    await migrateToLatest(database.db);
    await withTenant(DEFAULT_TENANT_ID, async () => {
      await seedCatalog(database.db, { products: 5, seed: 5 });
      await createAuthService({ db: database.db, config: config.auth, logger }).createUser({
        name: 'S',
        ...credentials,
        isAdmin: false,
      });
    });
    // The embedded database admits one process at a time.
    await database.close();
    env = { DATA_DIR: dir };
    cleanup = () => fs.rm(dir, { recursive: true, force: true });
  }
});
afterAll(() => cleanup?.());

interface Outcome {
  id: string;
  status?: number;
  complete: boolean;
  error?: string;
  reused: boolean;
  connectionClose?: boolean;
}

let sequence = 0;
function send(port: number, agent: http.Agent | false, kind: 'graphql' | 'login', token: string): Promise<Outcome> {
  const id = `load-${++sequence}`;
  const body =
    kind === 'login'
      ? JSON.stringify(credentials)
      : JSON.stringify({ query: 'query Load { products(first: 5) { data { id name steps { id } } } }' });
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: kind === 'login' ? '/api/v1/login' : '/graphql',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-request-id': id,
        ...(kind === 'graphql' ? { authorization: `Bearer ${token}` } : {}),
      },
    });
    req.on('response', (res) => {
      res.resume();
      const done = (complete: boolean) =>
        resolve({
          id,
          status: res.statusCode,
          complete,
          reused: req.reusedSocket,
          connectionClose: res.headers.connection === 'close',
        });
      res.on('end', () => done(res.complete));
      res.on('error', () => done(false));
      res.on('aborted', () => done(false));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ id, complete: false, error: err.code ?? err.message, reused: req.reusedSocket }),
    );
    req.end(body);
  });
}

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { token: string } }).data.token;
}

/**
 * Headers of a login whose body is held back: the request stays in flight until
 * we send it. `Expect: 100-continue` makes the server say when it has read them,
 * so the request is known to be accepted (not merely queued in the kernel).
 */
async function startHeldLogin(port: number, id: string) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const body = JSON.stringify(credentials);
  socket.write(
    `POST /api/v1/login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nX-Request-Id: ${id}\r\n` +
      `Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  let received = '';
  let onData = () => {};
  socket.setEncoding('utf8').on('data', (c: string) => {
    received += c;
    onData();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return {
    accepted: () =>
      new Promise<void>((resolve) => {
        onData = () => received.startsWith('HTTP/1.1 100') && resolve();
        onData();
      }),
    finish: () => socket.write(body),
    /** The final response, after the interim 100 Continue. */
    response: async () => {
      await closed;
      return received.replace(/^HTTP\/1\.1 100 [^\r]*\r\n\r\n/, '');
    },
    closed,
  };
}

const portOf = (server: ServerProcess) => Number(new URL(server.url).port);

describe('SIGTERM under load', () => {
  it('finishes every accepted request, closes keep-alive connections, exits 0; a second signal does no harm', async () => {
    const server = await startServerProcess(env);
    try {
      expect(await waitForStatus(`${server.url}/ready`, 200, 60_000)).toBe(200);
      const port = portOf(server);
      const token = await login(server.url);

      const outcomes: Outcome[] = [];
      let running = true;
      const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 4 });
      const worker = async (agent: http.Agent | false, n: number) => {
        for (let i = 0; running; i++) {
          const outcome = await send(port, agent, (i + n) % 4 === 0 ? 'login' : 'graphql', token);
          outcomes.push(outcome);
          if (outcome.error === 'ECONNREFUSED') return;
        }
      };
      const workers = [...[0, 1, 2, 3].map((n) => worker(keepAlive, n)), ...[0, 1, 2].map((n) => worker(false, n))];
      while (outcomes.length < 40) await new Promise((r) => setTimeout(r, 20));

      const held = await startHeldLogin(port, 'held-login');
      await held.accepted();
      server.child.kill('SIGTERM');
      await server.waitForLog((l) => l.msg === 'shutting down');
      server.child.kill('SIGINT');
      await server.waitForLog((l) => l.msg === 'already shutting down');
      const readyWhileDraining = await fetch(`${server.url}/ready`).then(
        (r) => r.status,
        () => 'refused',
      );
      held.finish();

      const { code, signal } = await server.exited;
      running = false;
      await Promise.all(workers);
      keepAlive.destroy();

      expect({ code, signal }).toEqual({ code: 0, signal: null });
      // No new connection gets through once draining; one that still does hears 503.
      expect([503, 'refused']).toContain(readyWhileDraining);

      // The request in flight when the signal came was answered, and told to close the connection.
      const heldResponse = await held.response();
      expect(heldResponse).toMatch(/^HTTP\/1\.1 200 /);
      expect(heldResponse.toLowerCase()).toContain('connection: close');

      const accepted = new Set(server.logs.filter((l) => l.msg === 'request').map((l) => l.reqId as string));
      const failedAccepted = outcomes.filter((o) => accepted.has(o.id) && !(o.complete && o.status === 200));
      const unexplained = outcomes.filter(
        (o) => !accepted.has(o.id) && !['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(o.error ?? ''),
      );
      expect(failedAccepted).toEqual([]);
      expect(unexplained).toEqual([]);
      expect(outcomes.filter((o) => o.complete).length).toBeGreaterThan(40);

      // Work was still going on after the signal and was allowed to finish.
      const stopIndex = server.logs.findIndex((l) => l.msg === 'shutting down');
      const drained = server.logs.slice(stopIndex).filter((l) => l.msg === 'request' && l.status === 200);
      expect(drained.length).toBeGreaterThan(0);
      expect(server.logs.some((l) => l.msg === 'stopped')).toBe(true);
    } finally {
      server.kill();
    }
  }, 120_000);

  it('cuts requests that outlive SHUTDOWN_TIMEOUT_MS and still exits 0', async () => {
    const server = await startServerProcess({ ...env, SHUTDOWN_TIMEOUT_MS: '1000' });
    try {
      expect(await waitForStatus(`${server.url}/ready`, 200, 60_000)).toBe(200);
      // A body that never comes: this request would keep the server open for minutes.
      const stuck = await startHeldLogin(portOf(server), 'stuck');
      await stuck.accepted();
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const { code } = await server.exited;
      const tookMs = Date.now() - signalled;
      expect(code).toBe(0);
      await stuck.closed;
      // It waited for the request, then gave up on it.
      expect(tookMs).toBeGreaterThanOrEqual(900);
      expect(tookMs).toBeLessThan(6_000);
    } finally {
      server.kill();
    }
  }, 120_000);
});
