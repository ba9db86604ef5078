import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { hashPassword, verifyPassword } from '../src/modules/auth/index.ts';
import type { Database } from '../src/modules/index.ts';
import { createDatabase, databaseOptions } from '../src/platform/db.ts';
import { createLogger } from '../src/platform/logger.ts';
import { migrateToLatest } from '../src/platform/migrate.ts';
import { actOutsideTenantsAs, DEFAULT_TENANT_ID } from '../src/platform/tenancy.ts';

// A measurement of one company: what this script seeds and reads directly is the default tenant's.
actOutsideTenantsAs(DEFAULT_TENANT_ID);

/**
 * Measures what a unit test must not: login timing.
 *
 *   npm run bench:login-timing [-- --samples 200]
 *     Interleaved wrong-password and unknown-email logins, one at a time; prints
 *     both medians and their difference. They should be within noise of each other.
 *
 *   npm run bench:login-timing -- --throughput [--requests 300] [--concurrency 32]
 *     Correct logins from many clients at once under the hashing bound
 *     (PASSWORD_HASH_CONCURRENCY etc.); prints logins/s, the status mix and
 *     GraphQL latency during the burst next to idle.
 *
 * Runs the app in-process on DATABASE_URL (which it migrates: give it a database
 * of its own), or on a throw-away embedded database. Throttle limits are raised
 * for the run; the users it creates are deleted after.
 */

const { values: args } = parseArgs({
  options: {
    samples: { type: 'string', default: '200' },
    throughput: { type: 'boolean', default: false },
    requests: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '32' },
  },
});

const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
const ms = (x: number) => `${x.toFixed(2)} ms`;

async function timed(fn: () => Promise<Response>): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  const res = await fn();
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - start };
}

async function main(): Promise<void> {
  const base = loadConfig();
  const tempDir = base.database.url ? undefined : await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-login-timing-'));
  const config = loadConfig({
    ...process.env,
    ...(tempDir ? { DATA_DIR: tempDir } : {}),
    LOG_LEVEL: 'silent',
    LOGIN_MAX_ATTEMPTS: '1000000',
    LOGIN_MAX_ATTEMPTS_PER_IP: '1000000',
  });
  const logger = createLogger('silent');
  const database = await createDatabase<Database>(databaseOptions(config.database, logger));
  await migrateToLatest(database.db);
  const app = await createApp(config, { database, logger });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const tag = randomBytes(4).toString('hex');
  const users: { id: string; email: string; password: string }[] = [];
  const createUser = async (i: number) => {
    const email = `login-timing-${tag}-${i}@example.invalid`;
    const password = randomBytes(12).toString('base64url');
    const user = await app.modules.auth.service.createUser({ name: 'Login timing', email, password, isAdmin: false });
    users.push({ id: user.id, email, password });
  };
  const login = (email: string, password: string) =>
    fetch(`${url}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });

  console.log(
    `node ${process.version}, ${os.availableParallelism()} CPUs, database: ${database.kind}, ` +
      `hash concurrency ${config.auth.passwordHash.concurrency}, queue ${config.auth.passwordHash.maxQueue}, ` +
      `queue timeout ${config.auth.passwordHash.maxWaitMs} ms`,
  );
  try {
    await createUser(0);
    if (args.throughput) await throughput();
    else await timing();
  } finally {
    // Its own users only; their tokens go with them (ON DELETE CASCADE).
    if (users.length > 0)
      await database.db
        .deleteFrom('users')
        .where(
          'id',
          'in',
          users.map((u) => u.id),
        )
        .execute();
    await app.close();
    await database.close();
    if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
  }

  async function timing(): Promise<void> {
    const samples = Number(args.samples);
    const user = users[0]!;
    const wrongPassword = () => login(user.email, `wrong-${randomBytes(6).toString('hex')}`);
    const unknownEmail = () => login(`nobody-${randomBytes(6).toString('hex')}@example.invalid`, 'wrong-password');
    for (let i = 0; i < 10; i++) {
      await timed(wrongPassword);
      await timed(unknownEmail);
    }
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < samples; i++) {
      // Alternate which goes first so drift (GC, a busy neighbour) hits both equally.
      const pair = i % 2 === 0 ? [wrongPassword, unknownEmail] : [unknownEmail, wrongPassword];
      for (const fn of pair) {
        const r = await timed(fn);
        if (r.status !== 401) throw new Error(`expected 401, got ${r.status}`);
        (fn === wrongPassword ? wrong : unknown).push(r.ms);
      }
    }
    const mw = median(wrong);
    const mu = median(unknown);
    console.log(`samples per kind:        ${samples} (interleaved, sequential)`);
    console.log(`wrong password  median:  ${ms(mw)}   p90 ${ms(quantile(wrong, 0.9))}`);
    console.log(`unknown email   median:  ${ms(mu)}   p90 ${ms(quantile(unknown, 0.9))}`);
    console.log(`difference (unknown - wrong): ${ms(mu - mw)} (${(((mu - mw) / mw) * 100).toFixed(1)} %)`);
  }

  async function throughput(): Promise<void> {
    const total = Number(args.requests);
    const concurrency = Number(args.concurrency);
    for (let i = 1; i < 8; i++) await createUser(i);
    const token = ((await (await login(users[0]!.email, users[0]!.password)).json()) as { data: { token: string } })
      .data.token;
    const graphql = () =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ products(first: 5) { data { id name } } }' }),
      });
    const idle: number[] = [];
    for (let i = 0; i < 30; i++) idle.push((await timed(graphql)).ms);
    // The ceiling to compare with: one argon2 verify at a time, outside the app.
    const phc = await hashPassword('calibration');
    const verifies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      await verifyPassword(phc, 'calibration');
      verifies.push(performance.now() - t0);
    }

    const statuses = new Map<number, number>();
    const during: number[] = [];
    let next = 0;
    let done = false;
    const start = performance.now();
    const prober = (async () => {
      while (!done) {
        const r = await timed(graphql);
        if (r.status !== 200) throw new Error(`GraphQL answered ${r.status} during the burst`);
        during.push(r.ms);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const u = users[next++ % users.length]!;
          const r = await timed(() => login(u.email, u.password));
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    done = true;
    await prober;
    const ok = statuses.get(200) ?? 0;
    const verifyMs = median(verifies);
    console.log(
      `one argon2 verify: ${ms(verifyMs)} median, so the bound of ${config.auth.passwordHash.concurrency} allows ` +
        `~${((1000 / verifyMs) * config.auth.passwordHash.concurrency).toFixed(1)} verifies/s at most`,
    );
    console.log(`logins: ${total} correct, ${concurrency} at a time, in ${seconds.toFixed(2)} s`);
    console.log(`statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}`);
    console.log(`successful logins/s: ${(ok / seconds).toFixed(1)}   answers/s: ${(total / seconds).toFixed(1)}`);
    console.log(
      `GraphQL median idle: ${ms(median(idle))}   during the burst: ${ms(median(during))} (${during.length} probes, all 200)`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
