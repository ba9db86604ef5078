import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

// Two real service processes on one PostgreSQL database, both with warm caches. After a write by
// each path (a mutation on one instance, psql, catalog:import), both answer the new data within a
// second, and a revoked token is refused by both. Instance B listens through a TCP proxy: with its
// listener cut or black-holed it must answer from the database, never from what it cached before.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const METRICS_TOKEN = 'instances-metrics-token-0123456789';
const HEARTBEAT_MS = 200;
const PRODUCT =
  'query Product($id: ID!) { product(id: $id) { id name steps { components { customisations { price } } } } }';

interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown>;
}

const describePg = process.env.DATABASE_URL ? describe : describe.skip;

describePg('the response and token caches on two instances (PostgreSQL notifications)', () => {
  let database: TestDatabase;
  let helper: TestApp;
  let proxy: TcpProxy;
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: string;
  let reader: string;
  let productId: string;
  let sku: string;
  let dir: string;
  const delays: Record<string, number[]> = {};

  const ask = async (instance: ServerProcess, token = reader, request?: GraphQLRequest) => {
    const res = await fetch(`${instance.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(request ?? { query: PRODUCT, variables: { id: productId } }),
    });
    return { status: res.status, body: await res.json() };
  };
  const nameOn = async (instance: ServerProcess) =>
    (await ask(instance)).body.data?.product?.name as string | undefined;
  const hits = async (instance: ServerProcess) => {
    const text = await (
      await fetch(`${instance.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    return Number(/^graphql_response_cache_hits_total (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  // As an operator would, on the service's role: in the default tenant (row-level security sees no other rows).
  const psql = (statement: string) =>
    run('psql', [database.url!, '-v', 'ON_ERROR_STOP=1', '-q', '-c', "SET pcs.tenant_id = '1'", '-c', statement]);

  /** Both instances hold the current answer (to `request`, else PRODUCT) in their caches (a hit each), then `write` runs. */
  async function warmThenWrite(write: () => Promise<unknown>, request?: GraphQLRequest) {
    // An invalidation still on its way (the instance's own echo of the last write, or a late heartbeat
    // that briefly bypasses the cache) may drop the first answer kept: ask until one is a hit.
    for (const instance of [a, b]) {
      let hit = false;
      for (let attempt = 0; attempt < 20 && !hit; attempt++) {
        await ask(instance, reader, request);
        const before = await hits(instance);
        await ask(instance, reader, request);
        hit = (await hits(instance)) === before + 1;
        if (!hit) await new Promise((r) => setTimeout(r, 50));
      }
      expect(hit).toBe(true);
    }
    await write();
    return performance.now();
  }

  /** Milliseconds from the end of the write until `instance` answers `name`. */
  async function delayUntil(instance: ServerProcess, name: string, since: number): Promise<number> {
    for (;;) {
      if ((await nameOn(instance)) === name) return performance.now() - since;
      if (performance.now() - since > 5_000) return Infinity;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  async function expectBothWithinASecond(path: string, name: string, since: number) {
    const [onA, onB] = await Promise.all([delayUntil(a, name, since), delayUntil(b, name, since)]);
    (delays[path] ??= []).push(onA, onB);
    expect(onA).toBeLessThan(1_000);
    expect(onB).toBeLessThan(1_000);
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedCatalog(database.handle.db, { products: 5, seed: 21 });
    helper = await startTestApp({ database, env: UNCACHED });
    const adminUser = await helper.createUser({ isAdmin: true });
    const user = await helper.createUser();
    admin = await helper.login(adminUser.email, adminUser.password);
    reader = await helper.login(user.email, user.password);
    const first = (await helper.graphql('{ products(first: 1) { data { id sku } } }', { token: reader })).body.data
      .products.data[0];
    productId = first.id;
    sku = first.sku;
    const target = new URL(database.url!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const env = { DATABASE_URL: database.url!, METRICS_TOKEN, CACHE_LISTENER_HEARTBEAT_MS: String(HEARTBEAT_MS) };
    [a, b] = await Promise.all([
      startServerProcess(env),
      startServerProcess({ ...env, DATABASE_LISTEN_URL: proxy.proxiedUrl(database.url!) }),
    ]);
    await Promise.all([a, b].map((s) => s.waitForLog((l) => l.msg === 'change notifications listening')));
    for (const instance of [a, b])
      while ((await fetch(`${instance.url}/ready`)).status !== 200) await new Promise((r) => setTimeout(r, 50));
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-instances-'));
  }, 60_000);

  afterAll(async () => {
    a?.kill();
    b?.kill();
    await Promise.all([a?.exited, b?.exited]);
    await proxy?.close();
    await helper?.close();
    await database?.drop();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
    const summary = Object.entries(delays).map(([p, ms]) => {
      const sorted = [...ms].sort((x, y) => x - y);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
      return `${p}: n=${sorted.length} min ${at(0)} median ${at(0.5)} p90 ${at(0.9)} max ${sorted.at(-1)!.toFixed(0)} ms`;
    });
    console.log(`invalidation delay, write finished → both instances answer the new data:\n  ${summary.join('\n  ')}`);
  });

  it('a mutation on instance A reaches both caches within a second', async () => {
    for (let i = 0; i < 10; i++) {
      const name = `Mutated ${i}`;
      const since = await warmThenWrite(async () => {
        const res = await fetch(`${a.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
          body: JSON.stringify({
            query: 'mutation ($id: ID!, $n: String!) { updateProduct(id: $id, input: { name: $n }) { id } }',
            variables: { id: productId, n: name },
          }),
        });
        expect(res.status).toBe(200);
      });
      await expectBothWithinASecond('mutation on A', name, since);
    }
  });

  /** Renames `id` through instance A, as a catalogue editor would. */
  async function renameOnA(id: string, name: string) {
    const res = await fetch(`${a.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({
        query: 'mutation ($id: ID!, $n: String!) { updateProduct(id: $id, input: { name: $n }) { id } }',
        variables: { id, n: name },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();
  }

  /**
   * `request`'s page as instance B answers it, asked again until `done` holds or a second has passed
   * since `since` (the notification's way); the caller asserts on the last answer.
   */
  async function pageOnB(request: GraphQLRequest, done: (names: string[]) => boolean, since: number, path: string) {
    for (;;) {
      const { body } = await ask(b, reader, request);
      expect(body.errors).toBeUndefined();
      const names = (body.data.products.data as { name: string }[]).map((p) => p.name);
      const elapsed = performance.now() - since;
      if (done(names) || elapsed > 1_000) {
        if (done(names)) (delays[path] ??= []).push(elapsed);
        return { names, total: body.data.products.paginatorInfo.total as number };
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  it('a product renamed on A enters, then leaves, a search page cached on B within a second', async () => {
    const other = (await helper.graphql('{ products(first: 2) { data { id } } }', { token: reader })).body.data.products
      .data[1].id as string;
    const search: GraphQLRequest = {
      query: 'query Find($s: String!) { products(first: 10, search: $s) { data { id name } paginatorInfo { total } } }',
      variables: { s: 'zephyr' },
    };
    for (let i = 0; i < 3; i++) {
      const entering = `Zephyr chair ${i}`;
      let since = await warmThenWrite(() => renameOnA(other, entering), search);
      const found = await pageOnB(search, (names) => names.includes(entering), since, 'search page on B, entering');
      expect(found).toEqual({ names: [entering], total: 1 });

      const leaving = `Plain chair ${i}`;
      since = await warmThenWrite(() => renameOnA(other, leaving), search);
      const gone = await pageOnB(search, (names) => names.length === 0, since, 'search page on B, leaving');
      expect(gone).toEqual({ names: [], total: 0 });
    }
  });

  it('a product renamed on A moves in a name-ordered page cached on B within a second', async () => {
    const all = (await helper.graphql('{ products(first: 10) { data { id } } }', { token: reader })).body.data.products
      .data as { id: string }[];
    const moved = all.at(-1)!.id;
    const byName: GraphQLRequest = {
      query:
        'query ByName { products(first: 3, orderBy: [{ column: NAME, order: ASC }]) { data { id name } paginatorInfo { total } } }',
    };
    for (let i = 0; i < 3; i++) {
      // "!" sorts before every letter and digit; "~" after them: first on the page, then off it.
      const first = `!${i} first by name`;
      let since = await warmThenWrite(() => renameOnA(moved, first), byName);
      const up = await pageOnB(byName, (names) => names[0] === first, since, 'name-ordered page on B, to the top');
      expect(up.names[0]).toBe(first);
      expect(up.total).toBe(all.length);

      const last = `~${i} last by name`;
      since = await warmThenWrite(() => renameOnA(moved, last), byName);
      const down = await pageOnB(
        byName,
        (names) => !names.includes(last) && !names.includes(first),
        since,
        'name-ordered page on B, off it',
      );
      expect(down.names).not.toContain(first);
      expect(down.names).not.toContain(last);
      expect(down.names).toHaveLength(3);
    }
  });

  it('a write made with psql reaches both caches within a second, prices and pages alike', async () => {
    for (let i = 0; i < 10; i++) {
      const name = `psql ${i}`;
      const since = await warmThenWrite(() => psql(`UPDATE products SET name = '${name}' WHERE id = ${productId}`));
      await expectBothWithinASecond('psql', name, since);
    }
    const since = await warmThenWrite(() =>
      psql(
        `UPDATE customisations SET price = 77.7 WHERE component_id IN (SELECT c.id FROM components c JOIN steps s ON s.id = c.step_id WHERE s.product_id = ${productId})`,
      ),
    );
    const prices = async (instance: ServerProcess) => {
      const { body } = await ask(instance);
      return new Set(
        body.data.product.steps.flatMap((s: any) =>
          s.components.flatMap((c: any) => c.customisations.map((x: any) => x.price)),
        ),
      );
    };
    for (const instance of [a, b]) {
      let seen = await prices(instance);
      while (!(seen.size === 1 && seen.has(77.7)) && performance.now() - since < 1_000) seen = await prices(instance);
      expect(seen, `${(performance.now() - since).toFixed(0)} ms after the write`).toEqual(new Set([77.7]));
    }
  });

  it("a write to one product leaves another product's cached answers on both instances", async () => {
    const ids = (await helper.graphql('{ products(first: 10) { data { id } } }', { token: reader })).body.data.products
      .data as { id: string }[];
    const other = ids.find((p) => p.id !== productId)!.id;
    const untouched: GraphQLRequest = { query: PRODUCT, variables: { id: other } };
    const customisation = (
      await helper.graphql(`{ product(id: "${productId}") { steps { components { customisations { id } } } } }`, {
        token: reader,
      })
    ).body.data.product.steps[0].components[0].customisations[0].id as string;
    for (let i = 0; i < 5; i++) {
      // Both answers cached on both instances, then a price of `productId` changes (psql, and a mutation on A).
      await warmThenWrite(async () => {}, untouched);
      const before = await Promise.all([a, b].map(async (instance) => (await ask(instance, reader, untouched)).body));
      const price = 50 + i;
      const since = await warmThenWrite(async () =>
        i % 2 === 0
          ? psql(`UPDATE customisations SET price = ${price} WHERE id = ${customisation}`)
          : ask(a, admin, {
              query: `mutation { updateCustomisation(id: "${customisation}", input: { price: ${price} }) { id } }`,
            }),
      );
      for (const instance of [a, b]) {
        // The changed product is fresh within a second ...
        let first: number | undefined;
        while (performance.now() - since < 1_000) {
          first = (await ask(instance)).body.data.product.steps[0].components[0].customisations[0].price;
          if (first === price) break;
        }
        expect(first).toBe(price);
        // ... and the other one is still served from the cache, unchanged.
        const hitsBefore = await hits(instance);
        expect((await ask(instance, reader, untouched)).body).toEqual(before[instance === a ? 0 : 1]);
        expect(await hits(instance)).toBe(hitsBefore + 1);
      }
    }
  });

  it('catalog:import reaches both caches within a second', async () => {
    const env = { ...process.env, DATABASE_URL: database.url!, LOG_LEVEL: 'error' };
    const file = path.join(dir, 'catalog.json');
    await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'catalog:export', '--out', file], {
      cwd: ROOT,
      env,
    });
    for (let i = 0; i < 3; i++) {
      const name = `Imported ${i}`;
      const catalogue = JSON.parse(await fs.readFile(file, 'utf8')) as { products: { sku: string; name: string }[] };
      catalogue.products.find((p) => p.sku === sku)!.name = name;
      await fs.writeFile(file, JSON.stringify(catalogue));
      const since = await warmThenWrite(() =>
        run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'catalog:import', file], { cwd: ROOT, env }),
      );
      await expectBothWithinASecond('catalog:import', name, since);
    }
    // Four CLI processes, each starting Node and tsx: minutes on a loaded machine, whatever the caches do.
  }, 180_000);

  /** A new reader token that both instances have verified twice (so each holds it). */
  async function tokenKnownToBoth() {
    const user = await helper.createUser();
    const token = await helper.login(user.email, user.password);
    for (const instance of [a, b]) for (let i = 0; i < 2; i++) expect((await ask(instance, token)).status).toBe(200);
    return token;
  }

  /** Milliseconds from `since` until `instance` refuses `token`. */
  async function refusedAfter(instance: ServerProcess, token: string, since: number): Promise<number> {
    for (;;) {
      if ((await ask(instance, token)).status === 401) return performance.now() - since;
      if (performance.now() - since > 5_000) return Infinity;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  it('a token logged out on A, or deleted with psql, is refused by both instances within a second', async () => {
    for (let i = 0; i < 5; i++) {
      const token = await tokenKnownToBoth();
      const res = await fetch(`${a.url}/api/v1/logout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      const since = performance.now();
      expect((await ask(a, token)).status).toBe(401);
      const onB = await refusedAfter(b, token, since);
      (delays['token logout on A, refused on B'] ??= []).push(onB);
      expect(onB).toBeLessThan(1_000);
    }
    for (let i = 0; i < 5; i++) {
      const token = await tokenKnownToBoth();
      await psql(`DELETE FROM personal_access_tokens WHERE id = ${token.split('|')[0]}`);
      const since = performance.now();
      const [onA, onB] = await Promise.all([refusedAfter(a, token, since), refusedAfter(b, token, since)]);
      (delays['token deleted with psql'] ??= []).push(onA, onB);
      expect(onA).toBeLessThan(1_000);
      expect(onB).toBeLessThan(1_000);
    }
  });

  it('with its listener cut, B answers from the database; when it is back, B caches again from empty', async () => {
    const token = await tokenKnownToBoth();
    await warmThenWrite(async () => {});
    await proxy.cut();
    await b.waitForLog((l) => l.msg === 'change notifications lost: caches bypassed until they are back', 5_000);
    // B held this token, and cannot hear it revoked: it looks every token up until it listens again.
    await psql(`DELETE FROM personal_access_tokens WHERE id = ${token.split('|')[0]}`);
    expect((await ask(b, token)).status).toBe(401);
    await psql(`UPDATE products SET name = 'Written while B was deaf' WHERE id = ${productId}`);
    // A heard it; B did not, and must not answer what it had cached.
    expect(await nameOn(b)).toBe('Written while B was deaf');
    const hitsWhileDeaf = await hits(b);
    await ask(b);
    expect(await hits(b)).toBe(hitsWhileDeaf);

    const listening = b.logs.filter((l) => l.msg === 'change notifications listening').length;
    await proxy.restore();
    await b.waitForLog(
      () => b.logs.filter((l) => l.msg === 'change notifications listening').length > listening,
      10_000,
    );
    expect(await nameOn(b)).toBe('Written while B was deaf');
    const name = 'After B came back';
    const since = await warmThenWrite(() => psql(`UPDATE products SET name = '${name}' WHERE id = ${productId}`));
    await expectBothWithinASecond('psql, after B reconnected', name, since);
  }, 30_000);

  it('with its listener black-holed, B notices within a few heartbeats and stops serving from its cache', async () => {
    await warmThenWrite(async () => {});
    const lost = b.logs.filter(
      (l) => l.msg === 'change notifications lost: caches bypassed until they are back',
    ).length;
    proxy.blackHole();
    const started = performance.now();
    await b.waitForLog(
      () =>
        b.logs.filter((l) => l.msg === 'change notifications lost: caches bypassed until they are back').length > lost,
      5_000,
    );
    expect(performance.now() - started).toBeLessThan(HEARTBEAT_MS * 4);
    await psql(`UPDATE products SET name = 'Written into the black hole' WHERE id = ${productId}`);
    expect(await nameOn(b)).toBe('Written into the black hole');
    await proxy.restore();
  }, 30_000);

  it('a writer whose own change never comes back (listener black-holed, not yet noticed) empties its store: it reads its write', async () => {
    // C checks its listener only every 60 s, so only the writer's catch-up barrier can tell it is deaf.
    const target = new URL(database.url!);
    const deafProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const c = await startServerProcess({
      DATABASE_URL: database.url!,
      DATABASE_LISTEN_URL: deafProxy.proxiedUrl(database.url!),
      METRICS_TOKEN,
      CACHE_LISTENER_HEARTBEAT_MS: '60000',
    });
    try {
      await c.waitForLog((l) => l.msg === 'change notifications listening');
      let hit = false;
      for (let attempt = 0; attempt < 20 && !hit; attempt++) {
        await ask(c);
        const before = await hits(c);
        await ask(c);
        hit = (await hits(c)) === before + 1;
      }
      expect(hit).toBe(true);

      deafProxy.blackHole();
      const name = 'Written by a deaf writer';
      const written = await ask(c, admin, {
        query: 'mutation ($id: ID!, $n: String!) { updateProduct(id: $id, input: { name: $n }) { id } }',
        variables: { id: productId, n: name },
      });
      expect(written.body.errors).toBeUndefined();
      expect(c.logs.some((l) => l.msg === 'change notifications lost: caches bypassed until they are back')).toBe(
        false,
      );
      // Its cached answer held the old name, and no notification reached it: only the emptied store explains this.
      expect(await nameOn(c)).toBe(name);
    } finally {
      c.kill();
      await c.exited;
      await deafProxy.close();
    }
  }, 30_000);
});
