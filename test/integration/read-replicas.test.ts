import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { replicaPairSupport, startReplicaPair, type ReplicaPair } from '../../scripts/lib/replica-pair.ts';
import { createPostgresDatabase, type DatabaseHandle } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { actOutsideTenantsAs, DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { QueryLog, type TestDatabase } from '../support/database.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

// A throwaway primary and hot standby built with PostgreSQL's own tools (scripts/lib/replica-pair.ts); the
// gate keeps the file to the suite's PostgreSQL run, and names it when a run without DATABASE_URL skips it.
const onPostgres = Boolean(process.env.DATABASE_URL);
const support = replicaPairSupport();

const DB = 'replicas_test';
const OWNER = 'pcs_test_service';
const NAME_OF_1 = `query NameOf1 { product(id: 1) { id name } }`;
const PAGE = `query Page { products(first: 3) { data { id name steps { id name } } } }`;
const RENAME = `mutation Rename($name: String!) { updateProduct(id: 1, input: { name: $name }) { id name } }`;

interface Instance {
  app: TestApp;
  handle: DatabaseHandle;
}

describe.skipIf(!onPostgres)('read replicas (PostgreSQL)', () => {
  describe.skipIf(!support.ok)(`on a primary and a hot standby${support.ok ? '' : ` (${support.reason})`}`, () => {
    let pair: ReplicaPair;
    let primaryUrl: string;
    let proxy: TcpProxy;
    let admin: pg.Client;
    const instances: Instance[] = [];
    let writer: string;
    let reader: string;

    /** One instance of the service: its own pool on the primary, and on the standby through the test's proxy. */
    async function startInstance(env: Record<string, string>, maxLagMs = 1_000): Promise<Instance> {
      const standby = new URL(proxy.proxiedUrl(pair.standbyUrl(DB, OWNER)));
      standby.searchParams.set('application_name', 'pcs-replica-test');
      const handle = createPostgresDatabase({
        databaseUrl: primaryUrl,
        replicaUrls: [standby.toString()],
        replicaMaxLagMs: maxLagMs,
        poolSize: 6,
        logger: createLogger('silent'),
      });
      const queries = new QueryLog();
      handle.observeQueries(queries.record);
      const database: TestDatabase = { handle, queries, url: primaryUrl, drop: async () => {} };
      const app = await startTestApp({ database, env });
      const instance = { app, handle };
      instances.push(instance);
      await until(() => handle.replicas!.status().replicas[0]!.up, 10_000);
      return instance;
    }

    async function standbyCommits(): Promise<number> {
      const standby = new pg.Client({ connectionString: pair.standbyUrl('postgres') });
      await standby.connect();
      try {
        const { rows } = await standby.query<{ n: string }>(
          'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
          [DB],
        );
        return Number(rows[0]!.n);
      } finally {
        await standby.end();
      }
    }

    async function standbyName(): Promise<string> {
      const standby = new pg.Client({ connectionString: pair.standbyUrl(DB) });
      await standby.connect();
      try {
        return (await standby.query<{ name: string }>('SELECT name FROM products WHERE id = 1')).rows[0]!.name;
      } finally {
        await standby.end();
      }
    }

    const nameOn = async (instance: Instance, token: string): Promise<string> => {
      const res = await instance.app.graphql(NAME_OF_1, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.errors).toBeUndefined();
      return res.body.data.product.name as string;
    };

    beforeAll(async () => {
      // As createTestDatabase does: the test's own set-up (users, the seed) acts in the default company.
      actOutsideTenantsAs(DEFAULT_TENANT_ID);
      pair = await startReplicaPair();
      await pair.createDatabase(DB, { owner: OWNER });
      primaryUrl = pair.primaryUrl(DB, OWNER);
      const setup = createPostgresDatabase({ databaseUrl: primaryUrl, poolSize: 2, logger: createLogger('silent') });
      await migrateToLatest(setup.db);
      await withTenant(DEFAULT_TENANT_ID, () => seedCatalog(setup.db, { products: 5, seed: 33 }));
      await setup.close();
      await pair.waitForReplay();
      const standby = new URL(pair.standbyUrl(DB, OWNER));
      proxy = await startTcpProxy({ host: standby.hostname, port: Number(standby.port) });
      admin = new pg.Client({ connectionString: pair.primaryUrl(DB) });
      await admin.connect();
      const first = await startInstance({});
      const w = await first.app.createUser({ isAdmin: true });
      const r = await first.app.createUser();
      writer = await first.app.login(w.email, w.password);
      reader = await first.app.login(r.email, r.password);
    }, 120_000);

    afterAll(async () => {
      for (const { app, handle } of instances) {
        await app.close();
        await handle.close();
      }
      await admin?.end();
      await proxy?.close();
      await pair?.stop();
    });

    it('sends the statements of queries to the standby, as its own counters say, and none to the primary once settled', async () => {
      const [instance] = instances;
      // The token's first use writes its last_used_at: the reads right after it go to the primary, until the
      // primary's position after that write is read (on a loaded machine, a while).
      const settled = instance!.handle.replicas!.status().replicas[0]!.reads;
      let probe = 1_000;
      await until(async () => {
        // A different id each time: a miss of the response cache.
        await instance!.app.graphql(`{ product(id: ${probe++}) { id } }`, { token: reader });
        return instance!.handle.replicas!.status().replicas[0]!.reads > settled;
      }, 10_000);
      const before = await standbyCommits();
      const { primaryReads, replicas } = instance!.handle.replicas!.status();
      const readsBefore = replicas[0]!.reads;
      // Twenty different pages: twenty misses of the response cache.
      for (let first = 1; first <= 20; first++) {
        const res = await instance!.app.graphql(`{ products(first: ${first}) { data { id name } } }`, {
          token: reader,
        });
        expect(res.body.data.products.data).toHaveLength(Math.min(first, 5));
      }
      const status = instance!.handle.replicas!.status();
      expect(status.replicas[0]!.reads - readsBefore).toBeGreaterThanOrEqual(20);
      // Statistics reach pg_stat_database within a second or so of the backends going idle.
      await until(async () => (await standbyCommits()) - before >= 20, 15_000);
      expect(status.primaryReads - primaryReads).toBe(0);
    });

    it('with replay paused, a write is read at once by every token on its instance and, once notified, on another; neither ever answers or caches the old name', async () => {
      const [a] = instances;
      const b = await startInstance({});
      // Warm both caches with the old name, for both tokens.
      for (const instance of [a!, b]) for (const token of [writer, reader]) await nameOn(instance, token);
      await pair.pauseReplay();
      try {
        const renamed = `Paused ${Date.now()}`;
        const res = await a!.app.graphql(RENAME, { token: writer, variables: { name: renamed } });
        expect(res.body.data.updateProduct.name).toBe(renamed);
        // The standby still holds the old row: any answer with it would have been read there.
        expect(await standbyName()).not.toBe(renamed);
        let stale = 0;
        for (let i = 0; i < 25; i++) {
          for (const token of [writer, reader]) if ((await nameOn(a!, token)) !== renamed) stale++;
        }
        expect(stale).toBe(0);
        // The other instance learns of it by notification (milliseconds here; 5 s allows for a loaded CI machine).
        await until(async () => (await nameOn(b, reader)) === renamed, 5_000);
        for (let i = 0; i < 25; i++) {
          for (const token of [writer, reader]) if ((await nameOn(b, token)) !== renamed) stale++;
        }
        expect(stale).toBe(0);
        expect(await standbyName()).not.toBe(renamed);
      } finally {
        await pair.resumeReplay();
      }
    });

    it('with replay paused, a configurator session saves its configuration and opens its short link at once', async () => {
      const [instance] = instances;
      await pair.pauseReplay();
      try {
        for (let i = 0; i < 5; i++) {
          const configure = await instance!.app.graphql(`query { configure(productId: 1, selections: []) { valid } }`, {
            token: writer,
          });
          expect(configure.body.errors).toBeUndefined();
          const saved = await instance!.app.graphql(
            `mutation { saveConfiguration(productId: 1, selections: []) { id productId } }`,
            { token: writer },
          );
          const id = saved.body.data.saveConfiguration.id as string;
          const opened = await instance!.app.graphql(`query ($id: ID!) { configuration(id: $id) { id productId } }`, {
            token: reader,
            variables: { id },
          });
          expect(opened.body).toEqual({ data: { configuration: { id, productId: '1' } } });
        }
      } finally {
        await pair.resumeReplay();
      }
    });

    it('without the response cache, a write is read at once on its instance while the standby has not replayed it', async () => {
      const uncached = await startInstance({ ...UNCACHED });
      await pair.pauseReplay();
      try {
        let stale = 0;
        for (let i = 0; i < 10; i++) {
          const renamed = `Uncached ${i} ${Date.now()}`;
          await uncached.app.graphql(RENAME, { token: writer, variables: { name: renamed } });
          if ((await nameOn(uncached, reader)) !== renamed) stale++;
          if ((await nameOn(uncached, writer)) !== renamed) stale++;
        }
        expect(stale).toBe(0);
      } finally {
        await pair.resumeReplay();
      }
      // Caught up, the standby takes the reads again.
      const reads = uncached.handle.replicas!.status().replicas[0]!.reads;
      await until(async () => {
        await nameOn(uncached, reader);
        return uncached.handle.replicas!.status().replicas[0]!.reads > reads;
      }, 5_000);
    });

    it('takes a standby lagging past DATABASE_REPLICA_MAX_LAG_MS out of rotation, and back once it catches up', async () => {
      const strict = await startInstance({ ...UNCACHED }, 300);
      await admin.query('CREATE TABLE IF NOT EXISTS lag_ticks (at timestamptz)');
      await pair.pauseReplay();
      // Writes this instance is not told of: only the lag can keep its reads off the standby.
      const ticking = setInterval(() => void admin.query('INSERT INTO lag_ticks VALUES (now())').catch(() => {}), 50);
      try {
        await until(() => !strict.handle.replicas!.status().replicas[0]!.up, 5_000);
        const reads = strict.handle.replicas!.status().replicas[0]!.reads;
        for (let i = 0; i < 5; i++) await nameOn(strict, reader);
        expect(strict.handle.replicas!.status().replicas[0]!.reads).toBe(reads);
      } finally {
        clearInterval(ticking);
        await pair.resumeReplay();
      }
      await until(() => strict.handle.replicas!.status().replicas[0]!.up, 5_000);
    });

    /** Queries from 4 clients until stopped; every answer is checked. */
    function load(instance: Instance) {
      let running = true;
      const failures: string[] = [];
      let answered = 0;
      const client = async () => {
        while (running) {
          const res = await instance.app.graphql(PAGE, { token: reader });
          if (res.status !== 200 || res.body.errors || res.body.data?.products?.data?.length !== 3) {
            failures.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          } else answered++;
        }
      };
      const clients = Promise.all([client(), client(), client(), client()]);
      return {
        stop: async () => {
          running = false;
          await clients;
          return { failures, answered };
        },
      };
    }

    it('costs no client an error when the standby is stopped with -m immediate mid-load, and uses it again within seconds of its return', async () => {
      const instance = await startInstance({ ...UNCACHED });
      const running = load(instance);
      await sleep(700);
      await pair.stopStandby('immediate');
      await sleep(1_500);
      await pair.startStandby();
      const back = performance.now();
      const reads = instance.handle.replicas!.status().replicas[0]!.reads;
      await until(() => instance.handle.replicas!.status().replicas[0]!.reads > reads, 10_000);
      const returnedMs = performance.now() - back;
      const { failures, answered } = await running.stop();
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(20);
      expect(returnedMs).toBeLessThan(10_000);
    });

    it('survives the standby network being cut and black-holed mid-load, and answers no stale name after it', async () => {
      // Uncached, so every request of the load reads the database.
      const instance = await startInstance({ ...UNCACHED });
      const running = load(instance);
      await sleep(500);
      await proxy.cut();
      await sleep(1_000);
      await proxy.restore();
      await until(() => instance.handle.replicas!.status().replicas[0]!.up, 10_000);
      proxy.blackHole();
      await sleep(1_500);
      await proxy.restore();
      await until(() => instance.handle.replicas!.status().replicas[0]!.up, 10_000);
      const { failures, answered } = await running.stop();
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(10);
      const renamed = `After the cut ${Date.now()}`;
      await instance.app.graphql(RENAME, { token: writer, variables: { name: renamed } });
      for (let i = 0; i < 10; i++) expect(await nameOn(instance, reader)).toBe(renamed);
    });
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(50);
  }
}
