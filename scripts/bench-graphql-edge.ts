/**
 * Prints how fast /graphql refuses abusive requests next to legitimate ones, on a
 * throwaway embedded database (never a configured one) in a temporary directory.
 *   npx tsx scripts/bench-graphql-edge.ts
 * Figures include the HTTP round trip and the bearer-token lookup.
 */
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { migrateToLatest } from '../src/platform/migrate.ts';
import type { Database } from '../src/modules/index.ts';
import { createDatabase, databaseOptions } from '../src/platform/db.ts';
import { seedCatalog } from '../db/seeds/catalog.ts';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { actOutsideTenantsAs, DEFAULT_TENANT_ID } from '../src/platform/tenancy.ts';

// A measurement of one company: what this script seeds and reads directly is the default tenant's.
actOutsideTenantsAs(DEFAULT_TENANT_ID);

const FULL = `{ products(first: 100) { data { id name sku steps { id name order components { id name customisations { id name type price } } } } paginatorInfo { count currentPage firstItem hasMorePages lastItem lastPage perPage total endCursor } } }`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-m-'));
const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dir, PORT: '0' });
const logger = createLogger('silent');
const database = await createDatabase<Database>(databaseOptions(config.database, logger, { poolSize: 5 }));
await migrateToLatest(database.db);
await seedCatalog(database.db, { products: 100, seed: 1 });
const app = await createApp(config, { database, logger });
await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
await app.modules.auth.service.createUser({
  name: 'm',
  email: 'm@example.com',
  password: 'measure-password-123',
  isAdmin: false,
});
const login = (await (
  await fetch(`${url}/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'm@example.com', password: 'measure-password-123' }),
  })
).json()) as { data: { token: string } };
const token = login.data.token;
async function time(label: string, body: string, extra: Record<string, string> = {}) {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...extra,
      },
      body,
    });
    await res.text();
    status = res.status;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(
    `${label}: status ${status}, median ${times[15]!.toFixed(1)} ms, p90 ${times[27]!.toFixed(1)} ms (30 requests, ${body.length} bytes)`,
  );
}
await time(
  '100,000-level nested document',
  JSON.stringify({ query: `${'{ a '.repeat(100_000)}${'}'.repeat(100_000)}` }),
);
await time('JSON array body', JSON.stringify([{ query: '{ __typename }' }]));
await time(
  '20 aliased full-depth pages',
  JSON.stringify({ query: `{ ${Array.from({ length: 20 }, (_, i) => `p${i}: ${FULL.slice(2, -2)}`).join(' ')} }` }),
);
await time('one full-depth page of 100', JSON.stringify({ query: FULL }));
await time('{ __typename }', JSON.stringify({ query: '{ __typename }' }));
await app.close();
await database.close();
fs.rmSync(dir, { recursive: true, force: true });
