import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENTS_PER_TENANT, removeDocuments } from '../../src/modules/documents/tools.ts';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { createCliTarget, type CliResult, type CliTarget } from '../support/cli.ts';
import { FEDERATION_SECRET } from '../support/edge.ts';
import { QueryLog, type TestDatabase } from '../support/database.ts';
import { addHosts, atHost, untilRouted, userAt } from '../support/tenants.ts';

// Trusted documents end to end: a Codegen manifest pushed with the real command (a child process), then
// requests naming its documents by id over HTTP, on instances opened on that same database.
// On the embedded database one process at a time opens it: the commands run before the instances start.

const SLOW = 300_000;
const onPostgres = Boolean(process.env.DATABASE_URL);
const ACME = 'acme.documents.test';
const BETA = 'beta.documents.test';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const PRODUCTS = 'query Products { products(first: 2) { data { id name sku } paginatorInfo { total } } }';
const PRODUCT = 'query Product($id: ID!) { product(id: $id) { id name } }';
const DELETE = 'mutation Delete($id: ID!) { deleteProduct(id: $id) { id } }';
const CREATE = 'mutation Create($input: CreateProductInput!) { createProduct(input: $input) { id name } }';
/** What GraphQL Codegen's client preset writes with `persistedDocuments: true`. */
const MANIFEST = Object.fromEntries([PRODUCTS, PRODUCT, DELETE, CREATE].map((d) => [sha256(d), d]));

/** One good entry beside six bad ones: a refused manifest writes nothing. */
const good = 'query Fine { products(first: 1) { data { id } } }';
const deep = `query Deep { ${'product(id: "1") { steps { components { customisations { component { step { product { '.repeat(2)}id${' } } } } } } }'.repeat(2)} }`;
const aliases = `query Aliased { ${Array.from({ length: 20 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
const BAD_ENTRIES = {
  [sha256(good)]: good,
  [sha256('query Other { __typename }')]: 'query Changed { __typename }',
  [sha256('query Broken {')]: 'query Broken {',
  [sha256('query Unknown { nothingHere }')]: 'query Unknown { nothingHere }',
  [sha256(deep)]: deep,
  [sha256(aliases)]: aliases,
  'not-a-hash': '{ __typename }',
};

let target: CliTarget;
let badPush: CliResult;
let overPush: CliResult;
let listed: CliResult;
let dir: string;
let database: TestDatabase;
let db: Kysely<any>;
let allow: TestApp;
let second: TestApp;
let required: TestApp;
let off: TestApp;
/** Both caches off: no change feed; it reads a tenant's documents again after a few seconds. */
let unfollowed: TestApp;
let acmeId: string;
let betaId: string;
let adminToken: string;
let readerToken: string;
let anyToken: string;
let productId: string;

const admin = (args: string[]) => target.run('admin', args);

async function manifestFile(name: string, manifest: Record<string, unknown>): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, JSON.stringify(manifest, null, 2));
  return file;
}

/** POST /graphql at a host with a body of our choosing. */
function post(t: TestApp, host: string, token: string | undefined, body: Record<string, unknown>) {
  return atHost(t.url, host, '/graphql', {
    method: 'POST',
    token,
    headers: { accept: 'application/graphql-response+json, application/json' },
    body,
  });
}

function get(t: TestApp, host: string, token: string | undefined, params: Record<string, string>) {
  return atHost(t.url, host, `/graphql?${new URLSearchParams(params).toString()}`, {
    method: 'GET',
    token,
    headers: { accept: 'application/graphql-response+json, application/json', 'x-graphql-yoga-csrf': '1' },
  });
}

const byId = (document: string) => ({ documentId: `sha256:${sha256(document)}` });

async function tokenWith(login: string, abilities: string[]): Promise<string> {
  const res = await atHost(allow.url, ACME, '/api/v1/tokens', {
    method: 'POST',
    token: login,
    body: { name: abilities.join(' '), abilities },
  });
  expect(res.status, res.text).toBe(201);
  return res.json().data.token as string;
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-documents-'));
  target = await createCliTarget();
  expect((await target.run('migrate', [])).code).toBe(0);
  for (const [slug, host] of [
    ['acme', ACME],
    ['beta', BETA],
  ] as const) {
    const created = await admin(['tenant:create', '--slug', slug, '--name', slug, '--host', host]);
    expect(created.code, created.stderr).toBe(0);
  }
  const pushed = await admin([
    'documents:push',
    await manifestFile('persisted-documents.json', MANIFEST),
    '--tenant',
    'acme',
  ]);
  expect(pushed.code, pushed.stderr).toBe(0);
  expect(pushed.stdout.trim().split('\n').sort()).toEqual(
    Object.keys(MANIFEST)
      .map((h) => `added ${h}`)
      .sort(),
  );
  // Before the instances open the database: the embedded one admits one process at a time.
  badPush = await admin(['documents:push', await manifestFile('bad.json', BAD_ENTRIES), '--tenant', 'acme']);
  const many = Array.from({ length: MAX_DOCUMENTS_PER_TENANT + 1 }, (_, i) => `query Q${i} { __typename }`);
  overPush = await admin([
    'documents:push',
    await manifestFile('many.json', Object.fromEntries(many.map((d) => [sha256(d), d]))),
    '--tenant',
    'beta',
  ]);

  listed = await admin(['documents:list', '--tenant', 'acme']);
  const handle = await target.open();
  const queries = new QueryLog();
  handle.observeQueries(queries.record);
  database = { handle, queries, url: target.env.DATABASE_URL, drop: () => handle.close() };
  db = handle.db;
  await addHosts(db, DEFAULT_TENANT_ID, ['default.documents.test']);
  const ids = await sql<{ id: string; slug: string }>`SELECT id::text, slug FROM tenants`.execute(db);
  acmeId = ids.rows.find((r) => r.slug === 'acme')!.id;
  betaId = ids.rows.find((r) => r.slug === 'beta')!.id;

  allow = await startTestApp({ database });
  second = await startTestApp({ database });
  required = await startTestApp({ database, env: { GRAPHQL_TRUSTED_DOCUMENTS: 'require', FEDERATION_SECRET } });
  off = await startTestApp({ database, env: { GRAPHQL_TRUSTED_DOCUMENTS: 'off' } });
  unfollowed = await startTestApp({ database, env: UNCACHED });
  await untilRouted([allow, second, required, off, unfollowed], ACME, 401);
  await untilRouted([allow], BETA, 401);

  adminToken = (await userAt(allow, acmeId, ACME, { isAdmin: true })).token;
  const reader = (await userAt(allow, acmeId, ACME)).token;
  readerToken = await tokenWith(reader, ['catalog:read']);
  anyToken = await tokenWith(reader, ['catalog:read', 'graphql:any']);
  const created = await post(allow, ACME, adminToken, {
    ...byId(CREATE),
    variables: { input: { name: 'Desk', sku: 'DESK-1', steps: [] } },
  });
  expect(created.status, created.text).toBe(200);
  productId = created.json().data.createProduct.id;
}, SLOW);

afterAll(async () => {
  for (const t of [allow, second, required, off, unfollowed]) await t?.close();
  await database?.drop();
  await target?.drop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('documents:push', () => {
  it('refuses a manifest with a bad entry, each with its reason, and writes none of it', async () => {
    const result = badPush;
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain(
      `refused ${sha256('query Other { __typename }')}: The hash does not match the document`,
    );
    expect(result.stdout).toContain(`refused ${sha256('query Broken {')}: Syntax Error: Expected Name, found <EOF>.`);
    expect(result.stdout).toContain(
      `refused ${sha256('query Unknown { nothingHere }')}: Cannot query field "nothingHere"`,
    );
    expect(result.stdout).toContain(`refused ${sha256(deep)}: Query depth limit of 10 exceeded.`);
    expect(result.stdout).toContain(`refused ${sha256(aliases)}: Aliases limit of 15 exceeded`);
    expect(result.stdout).toContain('refused not-a-hash: The key is not a SHA-256 hash');
    expect(result.stdout).not.toContain(sha256(good));
    expect(result.stderr).toContain('Refused 6 of 7 documents; nothing was written');
    const held = await withTenant(acmeId, () => sql`SELECT hash FROM trusted_documents`.execute(db));
    expect(held.rows).toHaveLength(Object.keys(MANIFEST).length);
  });

  it('lists what was pushed, one line a document', () => {
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^hash +created +bytes +document\n/);
    for (const [hash, text] of Object.entries(MANIFEST)) {
      expect(listed.stdout).toMatch(
        new RegExp(`^${hash} +\\S+ +${Buffer.byteLength(text)} +${text.slice(0, 20).replace(/[^\w ]/g, '\\$&')}`, 'm'),
      );
    }
    expect(listed.stderr).toContain(`${Object.keys(MANIFEST).length} trusted documents in tenant acme`);
  });

  it('refuses a manifest that would hold more than the bound, naming it', async () => {
    expect(overPush.code, overPush.stderr).toBe(1);
    expect(overPush.stderr).toContain(
      `The tenant would hold ${MAX_DOCUMENTS_PER_TENANT + 1} trusted documents; at most ${MAX_DOCUMENTS_PER_TENANT} are kept`,
    );
    expect(overPush.stderr).toContain('Nothing was written');
    const held = await withTenant(betaId, () => sql`SELECT hash FROM trusted_documents`.execute(db));
    expect(held.rows).toEqual([]);
  });
});

describe('a request naming a trusted document', () => {
  it('runs it by documentId (POST and GET) and by Apollo persistedQuery', async () => {
    const full = await post(allow, ACME, readerToken, { query: PRODUCT, variables: { id: productId } });
    expect(full.json()).toEqual({ data: { product: { id: productId, name: 'Desk' } } });
    const viaPost = await post(allow, ACME, readerToken, { ...byId(PRODUCT), variables: { id: productId } });
    expect(viaPost.status, viaPost.text).toBe(200);
    expect(viaPost.json()).toEqual(full.json());
    const viaGet = await get(allow, ACME, readerToken, {
      documentId: `sha256:${sha256(PRODUCT)}`,
      variables: JSON.stringify({ id: productId }),
    });
    expect(viaGet.status, viaGet.text).toBe(200);
    expect(viaGet.json()).toEqual(full.json());
    const apollo = await post(allow, ACME, readerToken, {
      variables: { id: productId },
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(PRODUCT) } },
    });
    expect(apollo.json()).toEqual(full.json());
    const apolloGet = await get(allow, ACME, readerToken, {
      variables: JSON.stringify({ id: productId }),
      extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(PRODUCT) } }),
    });
    expect(apolloGet.json()).toEqual(full.json());
  });

  it('answers an unknown id 400 PERSISTED_QUERY_NOT_FOUND, from memory: no statement', async () => {
    await post(allow, ACME, readerToken, byId(PRODUCTS));
    database.queries.reset();
    for (let i = 0; i < 20; i++) {
      const res = await post(allow, ACME, readerToken, { documentId: `sha256:${sha256(`random ${i}`)}` });
      expect(res.status).toBe(400);
      expect(res.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    }
    expect(database.queries.statements.filter((s) => /trusted_documents/.test(s))).toEqual([]);
    const malformed = await get(allow, ACME, readerToken, { documentId: 'md5:abc' });
    expect(malformed.status).toBe(400);
    expect(malformed.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it("is unknown on another tenant's host", async () => {
    const beta = (await userAt(allow, betaId, BETA)).token;
    const res = await post(allow, BETA, beta, byId(PRODUCTS));
    expect(res.status).toBe(400);
    expect(res.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('keeps every protection: a mutation needs its ability, and GET runs no mutation', async () => {
    const refused = await post(allow, ACME, readerToken, { ...byId(DELETE), variables: { id: productId } });
    expect(refused.status).toBe(403);
    expect(refused.json().errors[0].extensions.code).toBe('FORBIDDEN');
    const viaGet = await get(allow, ACME, adminToken, {
      documentId: `sha256:${sha256(DELETE)}`,
      variables: JSON.stringify({ id: productId }),
    });
    expect(viaGet.status).toBe(405);
    const still = await post(allow, ACME, readerToken, { ...byId(PRODUCT), variables: { id: productId } });
    expect(still.json().data.product).toEqual({ id: productId, name: 'Desk' });
  });

  it('is answered from the response cache under its text, never to a caller refused a full document', async () => {
    const variables = { id: productId };
    const first = await post(required, ACME, readerToken, { ...byId(PRODUCT), variables });
    expect(first.status, first.text).toBe(200);
    database.queries.reset();
    const hit = await post(required, ACME, readerToken, { ...byId(PRODUCT), variables });
    expect(hit.json()).toEqual(first.json());
    expect(database.queries.statements.filter((s) => !/personal_access_tokens/.test(s))).toEqual([]);
    // The same text sent in full by the same caller has the same key: refused, not served.
    const full = await post(required, ACME, readerToken, { query: PRODUCT, variables });
    expect(full.status).toBe(400);
    expect(full.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
  });
});

describe('GRAPHQL_TRUSTED_DOCUMENTS', () => {
  it('require: a full document answers 400 PERSISTED_QUERY_ONLY but for administrators, graphql:any and the gateway', async () => {
    const refused = await post(required, ACME, readerToken, { query: PRODUCTS });
    expect(refused.status).toBe(400);
    expect(refused.json().errors[0]).toMatchObject({ extensions: { code: 'PERSISTED_QUERY_ONLY' } });
    const refusedGet = await get(required, ACME, readerToken, { query: PRODUCTS });
    expect(refusedGet.status).toBe(400);
    // An administrator's token narrowed to catalog:read has no graphql:any: it is free as an administrator's.
    const narrowedAdmin = await tokenWith(adminToken, ['catalog:read']);
    for (const token of [adminToken, narrowedAdmin, anyToken]) {
      const res = await post(required, ACME, token, { query: PRODUCTS });
      expect(res.status, res.text).toBe(200);
      expect(res.json().data.products.paginatorInfo.total).toBe(1);
    }
    // The federation gateway plans documents itself: trusted documents are its to enforce.
    const viaGateway = await atHost(required.url, ACME, '/graphql', {
      method: 'POST',
      token: readerToken,
      headers: { 'router-authorization': FEDERATION_SECRET },
      body: { query: PRODUCTS },
    });
    expect(viaGateway.status, viaGateway.text).toBe(200);
    const notGateway = await atHost(required.url, ACME, '/graphql', {
      method: 'POST',
      token: readerToken,
      headers: { 'router-authorization': `${FEDERATION_SECRET}x` },
      body: { query: PRODUCTS },
    });
    expect(notGateway.status).toBe(400);
    const trusted = await post(required, ACME, readerToken, byId(PRODUCTS));
    expect(trusted.json().data.products.paginatorInfo.total).toBe(1);
  });

  it('off: an id answers 400 PERSISTED_QUERY_NOT_SUPPORTED; full documents run', async () => {
    for (const body of [
      byId(PRODUCTS),
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(PRODUCTS) } } },
    ]) {
      const res = await post(off, ACME, readerToken, body);
      expect(res.status).toBe(400);
      expect(res.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    }
    const full = await post(off, ACME, readerToken, { query: PRODUCTS });
    expect(full.json().data.products.paginatorInfo.total).toBe(1);
  });
});

describe('documents:remove', () => {
  it(
    'makes the document unknown on every instance, at once where notifications are followed',
    async () => {
      expect(unfollowed.app.changes).toBeUndefined();
      for (const t of [allow, second, unfollowed]) {
        const res = await post(t, ACME, readerToken, byId(PRODUCTS));
        expect(res.status, res.text).toBe(200);
      }
      if (onPostgres) {
        const removed = await admin(['documents:remove', `sha256:${sha256(PRODUCTS)}`, '--tenant', 'acme']);
        expect(removed.code, removed.stderr).toBe(0);
        expect(removed.stdout).toBe(`removed ${sha256(PRODUCTS)}\n`);
      } else {
        // One process opens the embedded database: the command's service call, from this one.
        expect(await withTenant(acmeId, () => removeDocuments(db, [sha256(PRODUCTS)]))).toEqual([sha256(PRODUCTS)]);
      }
      for (const [t, withinMs] of [
        [allow, 5_000],
        [second, 5_000],
        [unfollowed, 10_000],
      ] as const) {
        const deadline = Date.now() + withinMs;
        let res = await post(t, ACME, readerToken, byId(PRODUCTS));
        while (res.status === 200 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
          res = await post(t, ACME, readerToken, byId(PRODUCTS));
        }
        expect(res.status).toBe(400);
        expect(res.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      }
      const other = await post(allow, ACME, readerToken, { ...byId(PRODUCT), variables: { id: productId } });
      expect(other.status).toBe(200);
    },
    SLOW,
  );
});
