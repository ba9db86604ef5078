import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

/** For tests of the uncached path: statement counts, database faults, per-request errors. */
export const UNCACHED = { RESPONSE_CACHE_MAX_ENTRIES: '0', TOKEN_CACHE_MAX_ENTRIES: '0' } as const;

/** Log lines the app wrote, kept in memory so tests can read (and search) them. */
export class LogCapture extends Writable {
  lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text() {
    return this.lines.join('\n');
  }
}

export interface TestApp {
  url: string;
  app: App;
  config: Config;
  database: TestDatabase;
  logs: LogCapture;
  /** Creates a user through the auth service (real argon2) and returns its credentials. */
  createUser(input?: { email?: string; password?: string; name?: string; isAdmin?: boolean }): Promise<{
    id: string;
    email: string;
    password: string;
  }>;
  /** POST /api/v1/login and return the bearer token. */
  login(email: string, password: string): Promise<string>;
  /** POST /graphql with a token; returns status, headers and parsed body. */
  graphql(
    query: string,
    options?: { token?: string; variables?: Record<string, unknown> },
  ): Promise<{
    status: number;
    headers: Headers;
    body: any;
  }>;
  close(): Promise<void>;
}

let userCounter = 0;

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A listening app on a fresh database of its own; env overrides go through the real config parser. */
export async function startTestApp(
  options: { env?: Record<string, string>; database?: TestDatabase } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: '0', ...options.env });
  const logs = new LogCapture();
  const app = await createApp(config, { database: database.handle, logger: createLogger(config.logging.level, logs) });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  if (app.changes) await waitUntil(() => app.changes!.up, 10_000);
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const testApp: TestApp = {
    url,
    app,
    config,
    database,
    logs,
    async createUser(input = {}) {
      const email = input.email ?? `user${++userCounter}-${process.pid}@example.com`;
      const password = input.password ?? `pw-${Math.random().toString(36).slice(2)}-long-enough`;
      const user = await app.modules.auth.service.createUser({
        name: input.name ?? 'Test User',
        email,
        password,
        isAdmin: input.isAdmin ?? false,
      });
      return { id: user.id, email, password };
    },
    async login(email, password) {
      const res = await fetch(`${url}/api/v1/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      const body = (await res.json()) as { data?: { token?: string } };
      if (res.status !== 200 || !body.data?.token)
        throw new Error(`login failed: ${res.status} ${JSON.stringify(body)}`);
      return body.data.token;
    },
    async graphql(query, opts = {}) {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        },
        body: JSON.stringify({ query, variables: opts.variables }),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
    async close() {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
  return testApp;
}
