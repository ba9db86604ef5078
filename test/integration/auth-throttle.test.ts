import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { loginFrom, request } from '../support/raw-http.ts';

// Each test logs in from its own loopback addresses (all of 127.0.0.0/8 is local on
// Linux), and the throttle table is emptied before each, so no test inherits counts.

let t: TestApp;
let alice: { id: string; email: string; password: string };
let bob: { id: string; email: string; password: string };

const THROTTLED_BODY = { success: false, message: 'Too Many Attempts.' };

beforeAll(async () => {
  t = await startTestApp({
    env: { LOGIN_MAX_ATTEMPTS: '5', LOGIN_MAX_ATTEMPTS_PER_IP: '20', LOGIN_DECAY_SECONDS: '60' },
  });
  alice = await t.createUser({ email: 'alice@example.com', password: 'alice-correct-password' });
  bob = await t.createUser({ email: 'bob@example.com', password: 'bob-correct-password' });
});
afterAll(() => t?.close());
beforeEach(async () => {
  await sql`DELETE FROM login_throttle`.execute(t.database.handle.db);
});

/** Ends every open window, as if the decay time had passed. */
const endWindows = () =>
  sql`UPDATE login_throttle SET expires_at = now() - interval '1 second'`.execute(t.database.handle.db);

async function failTimes(n: number, from: string, email: string) {
  for (let i = 0; i < n; i++) {
    const res = await loginFrom(t.url, from, email, `wrong-password-${i}`);
    expect(res.status).toBe(401);
  }
}

describe('per (email, IP) throttling', () => {
  it('after 5 failures answers 429 with Retry-After, even for the right password, until the window passes', async () => {
    await failTimes(5, '127.0.0.2', alice.email);

    const throttled = await loginFrom(t.url, '127.0.0.2', alice.email, alice.password);
    expect(throttled.status).toBe(429);
    expect(throttled.json()).toEqual(THROTTLED_BODY);
    expect(throttled.headers['cache-control']).toBe('no-store');
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The email's case does not open a new bucket.
    const upper = await loginFrom(t.url, '127.0.0.2', alice.email.toUpperCase(), alice.password);
    expect(upper.status).toBe(429);

    // Another user on another IP, and the same user from another IP, are unaffected.
    expect((await loginFrom(t.url, '127.0.0.3', bob.email, bob.password)).status).toBe(200);
    expect((await loginFrom(t.url, '127.0.0.3', alice.email, alice.password)).status).toBe(200);

    await endWindows();
    expect((await loginFrom(t.url, '127.0.0.2', alice.email, alice.password)).status).toBe(200);
  });

  it('Retry-After is the seconds left in the window', async () => {
    await failTimes(5, '127.0.0.4', alice.email);
    await sql`UPDATE login_throttle SET expires_at = now() + interval '30 seconds'`.execute(t.database.handle.db);
    const res = await loginFrom(t.url, '127.0.0.4', alice.email, 'whatever');
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(29);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(30);
  });

  it('a successful login clears the counter', async () => {
    await failTimes(4, '127.0.0.5', alice.email);
    expect((await loginFrom(t.url, '127.0.0.5', alice.email, alice.password)).status).toBe(200);
    await failTimes(5, '127.0.0.5', alice.email);
    expect((await loginFrom(t.url, '127.0.0.5', alice.email, alice.password)).status).toBe(429);
  });

  it('counts atomically: 20 parallel guesses get exactly 5 password checks', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => loginFrom(t.url, '127.0.0.6', alice.email, `parallel-wrong-${i}`)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it('the window is shared by every instance on the database', async () => {
    const other = await startTestApp({ database: t.database });
    try {
      await failTimes(3, '127.0.0.7', alice.email);
      for (let i = 0; i < 2; i++) {
        expect((await loginFrom(other.url, '127.0.0.7', alice.email, `other-wrong-${i}`)).status).toBe(401);
      }
      expect((await loginFrom(other.url, '127.0.0.7', alice.email, alice.password)).status).toBe(429);
    } finally {
      await other.close();
    }
  });
});

describe('per-IP ceiling against password spraying', () => {
  it('stops an IP after 20 failures over many emails; other IPs still log in', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await loginFrom(t.url, '127.0.0.8', `sprayed-${i}@example.com`, 'Summer2026!');
      expect(res.status).toBe(401);
    }
    // Even a right password for an account never tried from this IP.
    const res = await loginFrom(t.url, '127.0.0.8', bob.email, bob.password);
    expect(res.status).toBe(429);
    expect(res.json()).toEqual(THROTTLED_BODY);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    expect((await loginFrom(t.url, '127.0.0.9', bob.email, bob.password)).status).toBe(200);
  });

  it('successful logins do not use up the ceiling (many users behind one address)', async () => {
    for (let i = 0; i < 25; i++) {
      const res = await loginFrom(
        t.url,
        '127.0.0.10',
        i % 2 ? alice.email : bob.email,
        i % 2 ? alice.password : bob.password,
      );
      expect(res.status).toBe(200);
    }
  });
});

describe('cleanup without a cron', () => {
  it('an attempt sweeps expired buckets and restarts its own expired window at 1', async () => {
    const db = t.database.handle.db;
    await sql`INSERT INTO login_throttle (key, hits, expires_at) VALUES
      ('ip:203.0.113.1', 7, now() - interval '5 minutes'),
      ('ip:203.0.113.2', 3, now() - interval '1 second'),
      ('ip:203.0.113.3', 1, now() + interval '1 minute')`.execute(db);
    await failTimes(5, '127.0.0.11', alice.email);
    await endWindows();
    await sql`UPDATE login_throttle SET expires_at = now() + interval '1 minute' WHERE key = 'ip:203.0.113.3'`.execute(
      db,
    );

    // Expired: its window restarts, so this wrong password is a plain 401.
    expect((await loginFrom(t.url, '127.0.0.11', alice.email, 'wrong-again')).status).toBe(401);

    const rows = await sql<{ key: string; hits: number }>`SELECT key, hits FROM login_throttle ORDER BY key`.execute(
      db,
    );
    const keys = rows.rows.map((r) => r.key);
    expect(keys).not.toContain('ip:203.0.113.1');
    expect(keys).not.toContain('ip:203.0.113.2');
    expect(keys).toContain('ip:203.0.113.3');
    expect(rows.rows.find((r) => r.key === 'ip:127.0.0.11')?.hits).toBe(1);
    // The email is never stored in clear.
    expect(JSON.stringify(rows.rows)).not.toContain('alice');
  });
});

describe('client IP behind proxies', () => {
  const fromProxy = (url: string, forwardedFor: string, email: string, password: string) =>
    request(url, '/api/v1/login', {
      method: 'POST',
      body: { email, password },
      headers: { 'x-forwarded-for': forwardedFor },
    });

  it('by default X-Forwarded-For is ignored: a forged header does not escape the throttle', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await fromProxy(t.url, `198.51.100.${i}`, alice.email, `wrong-${i}`)).status).toBe(401);
    }
    expect((await fromProxy(t.url, '198.51.100.99', alice.email, alice.password)).status).toBe(429);
  });

  it('with TRUST_PROXY=1 the address the proxy appended is the client', async () => {
    const proxied = await startTestApp({ database: t.database, env: { TRUST_PROXY: '1' } });
    try {
      // The left entry is the client's own claim and is never believed; the right one is the proxy's.
      for (let i = 0; i < 5; i++) {
        const res = await fromProxy(proxied.url, `10.9.9.${i}, 198.51.100.7`, alice.email, `wrong-${i}`);
        expect(res.status).toBe(401);
      }
      expect((await fromProxy(proxied.url, '198.51.100.7', alice.email, alice.password)).status).toBe(429);
      expect((await fromProxy(proxied.url, '198.51.100.8', alice.email, alice.password)).status).toBe(200);

      const throttled = proxied.logs.lines.map((l) => JSON.parse(l)).find((l) => l.event === 'login.throttled');
      expect(throttled).toMatchObject({ ip: '198.51.100.7', userId: alice.id });
    } finally {
      await proxied.close();
    }
  });
});
