import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceNodeArgs } from '../../scripts/lib/start-command.ts';
import { EXAMPLE_CONFIGURE, EXAMPLE_CONFIGURE_VARIABLES } from '../../src/graphiql-app/examples.ts';

/**
 * `npm start` on a fresh machine: the embedded database is created under
 * DATA_DIR, migrated and seeded with a demo catalogue and user whose password is
 * printed once; GraphiQL and a nested product query then work, and the GraphiQL
 * Configure tab, as it opens, shows the configurable demo desk's rules.
 */

const root = path.resolve(import.meta.dirname, '../..');
let dataDir: string;
const children: ChildProcess[] = [];

function start(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    // The demo catalogue is priced in the instance's currency.
    CATALOG_CURRENCY: 'CHF',
  };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, serviceNodeArgs(), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 120 s:\n${out}`)), 120_000);
    child.stdout.on('data', () => {
      if (out.includes('GraphiQL:')) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

describe('npm start on the embedded database', () => {
  it('seeds a demo once, serves GraphiQL and the nested product query, and keeps its data across restarts', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-start-'));
    const port = 40_000 + Math.floor(Math.random() * 20_000);
    const first = await start(port);
    const password = /password: (\S+)/.exec(first.output())?.[1];
    expect(password).toBeDefined();
    expect(first.output()).toContain(`http://127.0.0.1:${port}/graphql`);

    const base = `http://127.0.0.1:${port}`;
    const page = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Product Configuration Service');

    const login = await fetch(`${base}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'demo@example.com', password }),
    });
    expect(login.status).toBe(200);
    const { data } = (await login.json()) as { data: { token: string } };
    const query =
      '{ product(id: "1") { id name steps { id name components { id name customisations { id name type price } } } } }';
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${data.token}` },
      body: JSON.stringify({ query }),
    });
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.product.steps).toHaveLength(5);
    expect(body.data.product.steps[0].components[0].customisations).toHaveLength(3);
    // The Configure tab as GraphiQL opens it: the demo desk (product 51, after the 50 generated ones),
    // a selection that breaks its three rules, and the price all the same.
    const configure = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${data.token}` },
      body: JSON.stringify({ query: EXAMPLE_CONFIGURE, variables: JSON.parse(EXAMPLE_CONFIGURE_VARIABLES) }),
    });
    const check = await configure.json();
    expect(check.errors).toBeUndefined();
    expect(check.data.configure.product).toEqual({ name: 'Configurable Walnut Desk', basePrice: 399, currency: 'CHF' });
    expect(check.data.configure.valid).toBe(false);
    expect(
      check.data.configure.violations.map((v: any) => [v.code, v.customisationId, v.otherCustomisationId]),
    ).toEqual([
      ['EXCLUDES', '3004', '3007'],
      ['REQUIRES', '3010', '3009'],
      ['VALUE_REQUIRED', '3010', null],
    ]);
    expect(check.data.configure.price.base).toEqual({ amount: '399.00', currency: 'CHF' });
    expect(check.data.configure.price.total).toEqual({ amount: '593.00', currency: 'CHF' });
    expect(check.data.configure.price.lines.map((l: any) => [l.name, l.mode, l.amount.amount])).toEqual([
      ['160 x 80 cm', 'REPLACE_BASE', '549.00'],
      ['Natural oil', 'ADD', '0.00'],
      ['Stain-resistant coating', 'ADD', '29.00'],
      ['Engraved text', 'ADD', '15.00'],
    ]);
    // The demo user is an administrator of its own catalogue: it may write.
    const write = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${data.token}` },
      body: JSON.stringify({
        query: 'mutation { createProduct(input: { name: "Tried it", sku: "DEMO-TRY-1" }) { id sku } }',
      }),
    });
    expect((await write.json()).data.createProduct.sku).toBe('DEMO-TRY-1');
    expect(await stop(first.child)).toBe(0);

    // Second start: same data, no new demo user, no password printed.
    const second = await start(port);
    expect(second.output()).not.toContain('password:');
    const again = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${data.token}` },
      body: JSON.stringify({ query: '{ products(first: 1) { paginatorInfo { total } } }' }),
    });
    expect((await again.json()).data.products.paginatorInfo.total).toBe(53);
    expect(await stop(second.child)).toBe(0);
  }, 300_000);
});

describe('npm start on a tree that was never built', () => {
  it('compiles dist/ first, then serves from it', async () => {
    const tree = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-build-'));
    try {
      for (const entry of [
        'package.json',
        'tsconfig.json',
        'tsconfig.build.json',
        'src',
        'db',
        'schema',
        'docs/openapi.json',
        'scripts/build.mjs',
        'scripts/build-graphiql.mjs',
      ]) {
        await fs.cp(path.join(root, entry), path.join(tree, entry), { recursive: true });
      }
      await fs.symlink(path.join(root, 'node_modules'), path.join(tree, 'node_modules'));
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATA_DIR: path.join(tree, '.data'),
        PORT: '0',
        LOG_LEVEL: 'warn',
      };
      delete env.DATABASE_URL;
      // Its own process group: npm runs the service as a grandchild, and the signal must reach it.
      const child = spawn('npm', ['start'], { cwd: tree, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      await expect.poll(() => out, { timeout: 120_000, interval: 200 }).toContain('GraphiQL:');
      await expect(fs.stat(path.join(tree, 'dist/src/main.js'))).resolves.toBeTruthy();
      await expect(fs.stat(path.join(tree, 'dist/schema/catalog/product.graphql'))).resolves.toBeTruthy();
      await expect(fs.stat(path.join(tree, 'dist/graphiql/page.js'))).resolves.toBeTruthy();
      await expect(fs.stat(path.join(tree, 'dist/docs/openapi.json'))).resolves.toBeTruthy();
      // 'close', not 'exit': npm can exit before the service it started has closed its embedded database,
      // whose files the cleanup below would race; the service holds the output pipes until it is gone.
      const closed = new Promise((resolve) => child.once('close', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await closed;
    } finally {
      await fs.rm(tree, { recursive: true, force: true });
    }
  }, 300_000);
});
