import { afterEach, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

// Issue 30 item 3: a few heavy answers, or many from one token, flushed the popular ones. Admission
// weighs size: no answer over RESPONSE_CACHE_MAX_ANSWER_BYTES (a sixteenth of the bytes), and no
// token over its share once others' answers would be evicted for it.

const FULL =
  'id name sku steps { id name order components { id name position customisations { id name type price } } }';
const PRODUCT = `query ($id: ID!) { product(id: $id) { ${FULL} } }`;
const PAGE = `query ($first: Int!, $after: String) { products(first: $first, after: $after) { data { ${FULL} } paginatorInfo { endCursor } } }`;
// 40 popular answers of ~0.9 KB fill most of 40 KiB; a sixteenth is 2.5 KiB.
const ENV = { RESPONSE_CACHE_MAX_BYTES: '40960' };
const POPULAR = 40;

describe('admission weighs size', () => {
  let t: TestApp | undefined;
  afterEach(() => t?.close());

  /** An app whose cache holds `POPULAR` product answers, a reader's and an attacker's token. */
  async function warm() {
    t = await startTestApp({ env: ENV });
    const app = t;
    await seedCatalog(app.database.handle.db, {
      products: POPULAR,
      seed: 7,
      shape: { steps: 2, components: 2, customisations: 2 },
    });
    const [u, v] = [await app.createUser(), await app.createUser()];
    const reader = await app.login(u.email, u.password);
    const attacker = await app.login(v.email, v.password);
    const ids: string[] = (
      await app.graphql('{ products(first: 40) { data { id } } }', { token: reader })
    ).body.data.products.data.map((p: { id: string }) => p.id);
    for (let round = 0; round < 2; round++)
      for (const id of ids) await app.graphql(PRODUCT, { token: reader, variables: { id } });
    const popularHits = async () => {
      let hits = 0;
      for (const id of ids) {
        app.database.queries.reset();
        await app.graphql(PRODUCT, { token: reader, variables: { id } });
        if (!app.database.queries.statements.some((s) => !/personal_access_tokens/.test(s))) hits++;
      }
      return hits;
    };
    expect(await popularHits()).toBe(POPULAR);
    return { app, attacker, popularHits };
  }

  it('three heavy answers, each asked twice, leave the popular answers cached', async () => {
    const { app, attacker, popularHits } = await warm();
    for (const first of [30, 29, 28])
      for (let i = 0; i < 2; i++) {
        const res = await app.graphql(PAGE, { token: attacker, variables: { first } });
        // Heavier than a sixteenth of the cache, lighter than the whole: kept before, as the issue found.
        expect(JSON.stringify(res.body).length).toBeGreaterThan(40960 / 16);
        expect(JSON.stringify(res.body).length).toBeLessThan(40960);
      }
    expect(await popularHits()).toBe(POPULAR);
  });

  it('one token asking many light answers twice holds at most its share: most popular answers stay', async () => {
    const { app, attacker, popularHits } = await warm();
    const cursors: (string | null)[] = [null];
    for (let page = 0; page < 19; page++) {
      const res = await app.graphql(PAGE, { token: attacker, variables: { first: 2, after: cursors.at(-1) } });
      expect(JSON.stringify(res.body).length).toBeLessThan(40960 / 16);
      cursors.push(res.body.data.products.paginatorInfo.endCursor);
    }
    for (const after of cursors.slice(0, -1))
      await app.graphql(PAGE, { token: attacker, variables: { first: 2, after } });
    // 19 answers of ~1.9 KB would evict them all; a quarter of 40 KiB evicts at most ~12 of ~0.9 KB.
    expect(await popularHits()).toBeGreaterThanOrEqual(POPULAR - 12);
  });
});
