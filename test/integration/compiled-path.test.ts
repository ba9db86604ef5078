import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { serviceSchema } from '../../src/modules/index.ts';
import { pushDocuments } from '../../src/modules/documents/service.ts';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';

// A query naming a trusted document is answered without Yoga (src/graphql/compiled-path.ts). A client cannot
// tell: the same status, headers, bytes and statements as the same document sent in full, refusals included
// (those go to Yoga), as a session of requests would see them, with the response cache and without it.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const NESTED =
  'query Nested($id: ID!) { product(id: $id) { id name sku steps { id name order components { id name customisations { id name type price } } } } }';
const PAGE =
  'query Page($first: Int!, $after: String) { products(first: $first, after: $after) { data { id name sku } paginatorInfo { hasMorePages endCursor } } }';
const ME = '{ me { user { email } token { name } } }';
const SKIPPED = 'query Skipped($id: ID!, $skip: Boolean!) { product(id: $id) @skip(if: $skip) { id } __typename }';
const RENAME =
  'mutation Rename($id: ID!, $name: String!) { updateProduct(id: $id, input: { name: $name }) { id name } }';
const DOCUMENTS = [NESTED, PAGE, ME, SKIPPED, RENAME];
const ACCEPT = 'application/graphql-response+json, application/json';
const METRICS_TOKEN = 'compiled-path-metrics-token-0123456789';
const IGNORED_HEADERS = ['date', 'x-request-id', 'keep-alive', 'connection', 'last-modified'];

interface Sent {
  status: number;
  headers: Record<string, string>;
  text: string;
  statements: string[];
}

describe.each([
  ['with the response cache', {}],
  ['without caches', UNCACHED],
])('a trusted query answered without Yoga, %s', (_label, env) => {
  let t: TestApp;
  let reader: string;
  let writer: string;
  let narrow: string;
  let ids: string[];

  const compiledAnswers = async () => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    return Number(/^graphql_compiled_answers_total (\d+)/m.exec(await res.text())?.[1] ?? NaN);
  };

  async function post(body: unknown, token = reader, headers: Record<string, string> = {}): Promise<Sent> {
    t.database.queries.reset();
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      headers: Object.fromEntries([...res.headers].filter(([name]) => !IGNORED_HEADERS.includes(name))),
      text: await res.text(),
      // Less the token and document lookups.
      statements: t.database.queries.statements.filter((s) => !/personal_access_tokens|trusted_documents/.test(s)),
    };
  }

  /** The document sent in full, then by id: each answered afresh (the cache emptied by a catalogue write between). */
  async function both(document: string, variables?: Record<string, unknown>, token = reader) {
    const full = await post({ query: document, variables }, token);
    t.app.responseCache?.clear();
    const before = await compiledAnswers();
    const byId = await post({ documentId: `sha256:${sha256(document)}`, variables }, token);
    return { full, byId, compiled: (await compiledAnswers()) - before };
  }

  beforeAll(async () => {
    // A cost bound a page of 100 passes over, and nothing else here does.
    t = await startTestApp({ env: { ...env, METRICS_TOKEN, GRAPHQL_MAX_COST: '500' } });
    await withTenant(DEFAULT_TENANT_ID, async () => {
      await seedCatalog(t.database.handle.db, {
        products: 7,
        seed: 3,
        shape: { steps: 2, components: 2, customisations: 2 },
      });
      const pushed = await pushDocuments(
        t.database.handle.db as never,
        Object.fromEntries(DOCUMENTS.map((d) => [sha256(d), d])),
        serviceSchema(),
        t.config.graphql,
      );
      expect(pushed.refused).toEqual([]);
    });
    const u = await t.createUser();
    reader = await t.login(u.email, u.password);
    const admin = await t.createUser({ isAdmin: true });
    writer = await t.login(admin.email, admin.password);
    const minted = await fetch(`${t.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${reader}` },
      body: JSON.stringify({ name: 'no abilities', abilities: [] }),
    });
    narrow = ((await minted.json()) as { data: { token: string } }).data.token;
    const page = await t.graphql('{ products(first: 7) { data { id } } }', { token: reader });
    ids = page.body.data.products.data.map((p: { id: string }) => p.id);
  });
  afterAll(() => t?.close());

  it('answers as the full document does: bytes, headers, statements', async () => {
    for (const [document, variables] of [
      [NESTED, { id: ids[0] }],
      [PAGE, { first: 3 }],
      [ME, undefined],
      [SKIPPED, { id: ids[1], skip: false }],
    ] as const) {
      const { full, byId, compiled } = await both(document, variables);
      expect(full.status, full.text).toBe(200);
      expect(byId).toEqual(full);
      expect(compiled, document).toBe(1);
    }
  });

  it('walks every page by id, the cursor from each answer, while the catalogue is renamed', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      // Each page's products renamed before the walk reads the next: the cache must never answer the old name.
      const { text, status } = await post({ documentId: `sha256:${sha256(PAGE)}`, variables: { first: 2, after } });
      expect(status, text).toBe(200);
      const { data } = JSON.parse(text);
      for (const p of data.products.data) {
        seen.push(p.id);
        const renamed = await post(
          { documentId: `sha256:${sha256(RENAME)}`, variables: { id: p.id, name: `Renamed ${p.id}` } },
          writer,
        );
        expect(renamed.status, renamed.text).toBe(200);
        const nested = await post({ documentId: `sha256:${sha256(NESTED)}`, variables: { id: p.id } });
        expect(JSON.parse(nested.text).data.product.name).toBe(`Renamed ${p.id}`);
      }
      if (!data.products.paginatorInfo.hasMorePages) break;
      after = data.products.paginatorInfo.endCursor;
    }
    expect(seen).toEqual(ids);
  });

  it('leaves refusals to Yoga, answered exactly as for the full document', async () => {
    for (const [document, variables, token] of [
      // A variable that does not coerce; cost beyond the limit; a token without catalog:read.
      [NESTED, { id: { not: 'an id' } }, reader],
      [PAGE, { first: 100_000 }, reader],
      [NESTED, { id: ids[0] }, narrow],
      // Forbidden text in a variable (200, the data null beside the error).
      [NESTED, { id: 'a\u0000b' }, reader],
    ] as const) {
      const { full, byId, compiled } = await both(document, variables, token);
      expect(JSON.parse(full.text).errors, full.text).toHaveLength(1);
      expect(byId).toEqual(full);
      expect(compiled).toBe(0);
    }
    // A field skipped by a variable is still checked (generic-auth on graphql 16): refused alike.
    const skipped = await both(SKIPPED, { id: ids[0], skip: true }, narrow);
    expect(skipped.byId).toEqual(skipped.full);
    expect(skipped.compiled).toBe(0);
  });

  it('answers an error in execution as Yoga does, and a product that is not there', async () => {
    for (const [document, variables] of [[NESTED, { id: '999999999' }]] as const) {
      const { full, byId, compiled } = await both(document, variables);
      expect(byId).toEqual(full);
      expect(compiled).toBe(1);
    }
    const wrongName = await post({
      documentId: `sha256:${sha256(NESTED)}`,
      variables: { id: ids[0] },
      operationName: 'Other',
    });
    const wrongNameFull = await post({ query: NESTED, variables: { id: ids[0] }, operationName: 'Other' });
    expect(wrongName).toEqual(wrongNameFull);
  });
});
