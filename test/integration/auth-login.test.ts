import { hash, type Algorithm } from '@node-rs/argon2';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { request } from '../support/raw-http.ts';

let t: TestApp;
let user: { id: string; email: string; password: string };

const login = (body: unknown) => request(t.url, '/api/v1/login', { method: 'POST', body });

beforeAll(async () => {
  // Limits far away: these tests are about answers, not throttling.
  t = await startTestApp({ env: { LOGIN_MAX_ATTEMPTS: '1000', LOGIN_MAX_ATTEMPTS_PER_IP: '1000' } });
  user = await t.createUser({ email: 'grace@example.com', password: 'correct horse battery staple' });
});
afterAll(() => t?.close());
beforeEach(() => t.database.queries.reset());

describe('unknown emails are treated like wrong passwords', () => {
  it('same status, byte-identical body and the same headers', async () => {
    const wrong = await login({ email: user.email, password: 'not the password' });
    const unknown = await login({ email: 'nobody-here@example.com', password: 'not the password' });

    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.text).toBe('{"success":false,"message":"Invalid credentials."}');
    expect(unknown.text).toBe(wrong.text);
    // Only the date and the per-request id may differ.
    const { date: _a, 'x-request-id': _c, ...wrongHeaders } = wrong.headers;
    const { date: _b, 'x-request-id': _d, ...unknownHeaders } = unknown.headers;
    expect(unknownHeaders).toEqual(wrongHeaders);
    expect(wrong.headers['cache-control']).toBe('no-store');

    const ok = await login({ email: user.email, password: user.password });
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
  });
});

describe('input bounds are checked before any database or hashing work', () => {
  const noSqlSent = () => expect(t.database.queries.statements).toEqual([]);

  it('an email over 254 characters is a 422', async () => {
    const email = `${'a'.repeat(243)}@example.com`; // 255 characters
    const res = await login({ email, password: 'whatever' });
    expect(res.status).toBe(422);
    expect(res.json()).toMatchObject({
      success: false,
      errors: { email: ['The email field must not be greater than 254 characters.'] },
    });
    expect(res.headers['cache-control']).toBe('no-store');
    noSqlSent();
  });

  it('a password over 1,024 bytes is a 422, counted in bytes, not characters', async () => {
    const res = await login({ email: user.email, password: 'é'.repeat(513) }); // 513 characters, 1,026 bytes
    expect(res.status).toBe(422);
    expect(res.json()).toMatchObject({
      success: false,
      errors: { password: ['The password field must not be greater than 1024 bytes.'] },
    });
    noSqlSent();

    // Exactly 1,024 bytes is allowed (and simply wrong).
    expect((await login({ email: user.email, password: 'é'.repeat(512) })).status).toBe(401);
  });

  it('missing fields are a 422 naming each field', async () => {
    const res = await login({});
    expect(res.status).toBe(422);
    expect(Object.keys(res.json().errors).sort()).toEqual(['email', 'password']);
    noSqlSent();
  });
});

describe('password hashes', () => {
  it('a stored hash with weaker parameters is upgraded on the next successful login, not on a failed one', async () => {
    const password = 'an old account password';
    const weak = await hash(password, { algorithm: 2 as Algorithm, memoryCost: 8192, timeCost: 1, parallelism: 1 });
    const db = t.database.handle.db;
    const row = await db
      .insertInto('users')
      .values({ name: 'Old Timer', email: 'old-timer@example.com', password_hash: weak })
      .returning('id')
      .executeTakeFirstOrThrow();
    const storedHash = async () =>
      (await db.selectFrom('users').select('password_hash').where('id', '=', row.id).executeTakeFirstOrThrow())
        .password_hash;

    expect((await login({ email: 'old-timer@example.com', password: 'wrong' })).status).toBe(401);
    expect(await storedHash()).toBe(weak);

    expect((await login({ email: 'old-timer@example.com', password })).status).toBe(200);
    const upgraded = await storedHash();
    expect(upgraded).not.toBe(weak);
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    // The upgraded hash still verifies, and is left alone from then on.
    expect((await login({ email: 'old-timer@example.com', password })).status).toBe(200);
    expect(await storedHash()).toBe(upgraded);
  });

  it('new users get argon2id at OWASP strength', async () => {
    const created = await t.createUser({ email: 'fresh@example.com' });
    const row = await sql<{ password_hash: string }>`SELECT password_hash FROM users WHERE id = ${created.id}`.execute(
      t.database.handle.db,
    );
    expect(row.rows[0]!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});

describe('bounded hashing under a burst of logins', () => {
  const allowed = [200, 401, 429, 503];
  const QUERY = '{ products(first: 1) { data { id } } }';

  async function burst(app: TestApp, users: { email: string; password: string }[], n: number) {
    const token = await app.login(users[0]!.email, users[0]!.password);
    const logins = Array.from({ length: n }, (_, i) => {
      const u = users[i % users.length]!;
      return request(app.url, '/api/v1/login', {
        method: 'POST',
        body: { email: u.email, password: i % 3 === 0 ? 'wrong password' : u.password },
      });
    });
    // A GraphQL request in the middle of the burst.
    const graphql = await app.graphql(QUERY, { token });
    const responses = await Promise.all(logins);
    return { graphql, responses };
  }

  it('100 simultaneous logins on the defaults: no 500, no hang, GraphQL still answers', async () => {
    const app = await startTestApp({
      database: t.database,
      env: { LOGIN_MAX_ATTEMPTS: '1000', LOGIN_MAX_ATTEMPTS_PER_IP: '1000' },
    });
    try {
      const users = [];
      for (let i = 0; i < 4; i++) users.push(await app.createUser({ email: `burst-${i}@example.com` }));
      const { graphql, responses } = await burst(app, users, 100);
      expect(graphql.status).toBe(200);
      expect(graphql.body.data.products.data).toEqual(expect.any(Array));
      for (const r of responses) expect(allowed).toContain(r.status);
      expect(responses.some((r) => r.status === 200)).toBe(true);
      for (const r of responses.filter((r) => r.status === 503)) expect(r.headers['retry-after']).toBe('1');
    } finally {
      await app.close();
    }
  }, 90_000);

  it('beyond the queue, logins get 503 with Retry-After and the error envelope; nothing is counted against them', async () => {
    const app = await startTestApp({
      database: t.database,
      env: {
        LOGIN_MAX_ATTEMPTS: '3',
        LOGIN_MAX_ATTEMPTS_PER_IP: '1000',
        PASSWORD_HASH_CONCURRENCY: '1',
        PASSWORD_HASH_QUEUE: '2',
      },
    });
    try {
      const users = [];
      for (let i = 0; i < 4; i++) users.push(await app.createUser({ email: `queue-${i}@example.com` }));
      await sql`DELETE FROM login_throttle`.execute(app.database.handle.db);
      const { graphql, responses } = await burst(app, users, 100);
      expect(graphql.status).toBe(200);
      for (const r of responses) expect(allowed).toContain(r.status);
      const busy = responses.filter((r) => r.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      for (const r of busy) {
        expect(r.headers['retry-after']).toBe('1');
        expect(r.headers['cache-control']).toBe('no-store');
        expect(r.json()).toEqual({ success: false, message: 'Too many logins at once. Please retry shortly.' });
      }
      expect(app.logs.lines.some((l) => JSON.parse(l).event === 'login.busy')).toBe(true);

      // Only wrong passwords stay counted in the IP's bucket: refused (503, 429) and
      // successful attempts gave theirs back.
      const failures = responses.filter((r) => r.status === 401).length;
      const counts = await sql<{ hits: number }>`SELECT hits FROM login_throttle WHERE key = 'ip:127.0.0.1'`.execute(
        app.database.handle.db,
      );
      expect(counts.rows[0]?.hits ?? 0).toBe(failures);
    } finally {
      await app.close();
    }
  }, 90_000);
});
