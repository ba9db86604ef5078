import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeServices } from '@apollo/composition';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { FEDERATION_SECRET, GATEWAY_HEADERS, postGraphQL } from '../support/edge.ts';

// A real Hive Gateway from npm in front of the running service. The gateway is
// ~745 packages, so it lives in test/gateway/ with its own lockfile, installed by
// .ci/run (`npm ci --prefix test/gateway`), not in the service's dependencies.
const GATEWAY_DIR = fileURLToPath(new URL('../gateway/', import.meta.url));
const GATEWAY_BIN = path.join(GATEWAY_DIR, 'node_modules/@graphql-hive/gateway/dist/bin.js');
const installed = fs.existsSync(GATEWAY_BIN);
if (!installed) {
  console.warn('gateway test skipped: test/gateway/node_modules is missing; run `npm ci --prefix test/gateway`.');
}

// The seed's nested product selection.
const PRODUCT_QUERY = /* GraphQL */ `
  query ($id: ID!) {
    product(id: $id) {
      id
      name
      steps {
        id
        name
        components {
          id
          name
          customisations {
            id
            name
            type
            price
          }
        }
      }
    }
  }
`;

let t: TestApp;
let token: string;
let adminToken: string;
let productIds: string[];
let gateway: ChildProcess | undefined;
let gatewayUrl: string;
let gatewayOutput = '';
let promotions: http.Server | undefined;
let workDir: string;
const promotionsSawAuthorization: (string | undefined)[] = [];

/**
 * A second subgraph, as another team would run it: it knows which products are
 * featured by id only, so the gateway has to fetch everything else about them from
 * the catalog's `_entities`.
 */
async function startPromotionsSubgraph(featured: () => string[]): Promise<string> {
  const schema = buildSubgraphSchema([
    {
      typeDefs: parse(/* GraphQL */ `
        extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])
        type Product @key(fields: "id", resolvable: false) {
          id: ID!
        }
        type Query {
          "Products on promotion this week."
          featured: [Product!]!
        }
      `),
      resolvers: { Query: { featured: () => featured().map((id) => ({ id })) } },
    },
  ]);
  const yoga = createYoga({ schema, graphiql: false, logging: false });
  promotions = http.createServer((req, res) => {
    promotionsSawAuthorization.push(req.headers.authorization);
    void yoga(req, res);
  });
  await new Promise<void>((resolve) => promotions!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(promotions.address() as AddressInfo).port}/graphql`;
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitUntilReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode}):\n${gatewayOutput}`);
    const ok = await fetch(`${url}/readiness`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`gateway not ready after 90 s:\n${gatewayOutput}`);
}

async function viaGateway(query: string, variables: Record<string, unknown>, authorization?: string) {
  const res = await fetch(`${gatewayUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: await res.json() };
}

describe.skipIf(!installed)('through Hive Gateway (test/gateway)', () => {
  beforeAll(async () => {
    t = await startTestApp({ env: { FEDERATION_SECRET } });
    const user = await t.createUser();
    token = await t.login(user.email, user.password);
    const admin = await t.createUser({ isAdmin: true });
    adminToken = await t.login(admin.email, admin.password);
    await seedCatalog(t.database.handle.db, {
      products: 3,
      seed: 66,
      shape: { steps: 2, components: 2, customisations: 2 },
    });
    const page = await t.graphql('{ products(first: 3) { data { id } } }', { token });
    productIds = page.body.data.products.data.map((p: { id: string }) => p.id);

    const promotionsUrl = await startPromotionsSubgraph(() => [productIds[2]!, productIds[0]!]);
    const catalogSdl = (await postGraphQL(t, token, { query: '{ _service { sdl } }' }, GATEWAY_HEADERS)).body.data
      ._service.sdl;
    const promotionsSdl = await fetch(promotionsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ _service { sdl } }' }),
    }).then(async (r) => (await r.json()).data._service.sdl);
    const composed = composeServices([
      { name: 'catalog', url: `${t.url}/graphql`, typeDefs: parse(catalogSdl) },
      { name: 'promotions', url: promotionsUrl, typeDefs: parse(promotionsSdl) },
    ]);
    expect(composed.errors).toBeUndefined();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-gateway-'));
    const supergraph = path.join(workDir, 'supergraph.graphql');
    fs.writeFileSync(supergraph, composed.supergraphSdl!);

    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    gateway = spawn(
      process.execPath,
      [
        GATEWAY_BIN,
        'supergraph',
        supergraph,
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '-c',
        'gateway.config.mjs',
      ],
      {
        cwd: GATEWAY_DIR,
        env: { ...process.env, NODE_ENV: 'production', FEDERATION_SECRET },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    gateway.stdout!.on('data', (chunk) => (gatewayOutput += chunk));
    gateway.stderr!.on('data', (chunk) => (gatewayOutput += chunk));
    await waitUntilReady(gatewayUrl, gateway);
  }, 180_000);

  afterAll(async () => {
    if (gateway && gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway!.once('exit', resolve));
      gateway.kill('SIGTERM');
      await exited;
    }
    await new Promise((resolve) => (promotions ? promotions.close(resolve) : resolve(undefined)));
    await t?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('answers the nested product query exactly as the service does, with the bearer token forwarded', async () => {
    const id = productIds[1]!;
    const direct = await t.graphql(PRODUCT_QUERY, { token, variables: { id } });
    expect(direct.body.data.product.steps[1].components[1].customisations).toHaveLength(2);
    const res = await viaGateway(PRODUCT_QUERY, { id }, `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(direct.body);
  });

  it('without a token the catalog refuses the gateway too', async () => {
    const res = await viaGateway(PRODUCT_QUERY, { id: productIds[0] });
    expect(res.body.data?.product ?? null).toBeNull();
    expect(res.body.errors?.[0]).toMatchObject({
      message: 'Unauthenticated.',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('resolves products referenced by another subgraph through the catalog _entities', async () => {
    const query = `{ featured { id name sku steps { order components { name customisations { name price } } } } }`;
    promotionsSawAuthorization.length = 0;
    t.database.queries.reset();
    const res = await viaGateway(query, {}, `Bearer ${token}`);
    expect(res.body.errors).toBeUndefined();
    // Both references arrive in one _entities call and cost one products statement.
    const productStatements = t.database.queries.statements.filter((s) => /from "products"/i.test(s));
    expect(productStatements).toHaveLength(1);
    const expected = await Promise.all(
      [productIds[2]!, productIds[0]!].map(async (id) => {
        const direct = await t.graphql(
          `query ($id: ID!) { product(id: $id) { id name sku steps { order components { name customisations { name price } } } } }`,
          { token, variables: { id } },
        );
        return direct.body.data.product;
      }),
    );
    expect(res.body.data.featured).toEqual(expected);
    expect(promotionsSawAuthorization).toEqual([`Bearer ${token}`]);
  });

  it('runs catalogue mutations through the gateway, and _entities serves what they wrote', async () => {
    const id = productIds[2]!;
    const rename = `mutation ($id: ID!) { updateProduct(id: $id, input: { name: "Renamed through the gateway" }) { id name updatedAt } }`;
    const refused = await viaGateway(rename, { id }, `Bearer ${token}`);
    expect(refused.body.errors?.[0]).toMatchObject({
      message: 'This action is unauthorized.',
      extensions: { code: 'FORBIDDEN' },
    });

    const res = await viaGateway(rename, { id }, `Bearer ${adminToken}`);
    expect(res.body.errors).toBeUndefined();
    const { updatedAt } = res.body.data.updateProduct;

    const featured = await viaGateway(
      `{ featured { id name createdAt updatedAt steps { createdAt components { position customisations { updatedAt } } } } }`,
      {},
      `Bearer ${token}`,
    );
    expect(featured.body.errors).toBeUndefined();
    expect(featured.body.data.featured[0]).toMatchObject({ id, name: 'Renamed through the gateway', updatedAt });
    expect(featured.body.data.featured[0].steps[0].components[0].position).toBe(1);
  });
});
