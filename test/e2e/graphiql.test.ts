import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProductTrees } from '../../src/modules/catalog/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

// GraphiQL as people use it: Debian's chromium (.ci/run installs it) driven by
// playwright-core, against a running app, with no network beyond this machine.
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = 'test-results/graphiql.png';

let t: TestApp;
let browser: Browser;
let token: string;
let adminToken: string;
let productId: string;
beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install -y chromium\` (.ci/run does).`);
  }
  t = await startTestApp();
  const user = await t.createUser();
  token = await t.login(user.email, user.password);
  const admin = await t.createUser({ isAdmin: true });
  adminToken = await t.login(admin.email, admin.password);
  await insertProductTrees(t.database.handle.db, [
    {
      name: 'Walnut Writing Desk',
      sku: 'E2E-DESK-1',
      steps: [
        {
          name: 'Pick a finish',
          order: 1,
          components: [
            {
              name: 'Top',
              position: 1,
              customisations: [
                { name: 'Oiled', type: 'dropdown', price: '0.29' },
                { name: 'Lacquered', type: 'dropdown', price: '129.50' },
              ],
            },
          ],
        },
      ],
    },
  ]);
  const page = await t.graphql('{ products(first: 1) { data { id } } }', { token });
  productId = page.body.data.products.data[0].id;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The text a Monaco editor shows (it renders spaces as no-break spaces). */
const shown = (text: string) => text.replace(/\u00a0/g, ' ');

/** Hosts a request went to, other than this machine's loopback (blob: and data: URLs stay local). */
function foreignHost(url: string): string | null {
  if (url.startsWith('data:')) return null;
  const { hostname } = new URL(url.startsWith('blob:') ? url.slice(5) : url);
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname) ? null : hostname;
}

describe('GraphiQL in chromium', () => {
  it('runs the prefilled nested product query with a token from the headers editor', { timeout: 180_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    const foreign: string[] = [];
    const assets = new Set<string>();
    page.on('request', (request) => {
      const host = foreignHost(request.url());
      if (host) foreign.push(host);
      const asset = /\/graphql\/assets\/([\w.-]+?)\.[0-9a-f]{16}\./.exec(request.url());
      if (asset) assets.add(asset[1]!);
    });
    // The page must run under its Content-Security-Policy without a violation or an error:
    // chromium reports a refused script, style, worker or fetch as a console error.
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() !== 'error' && message.type() !== 'warning') return;
      // Expected: GraphiQL introspects with the token template before a token is pasted.
      const refusedIntrospection =
        message.location().url === `${t.url}/graphql` && message.text().includes('status of 401');
      if (!refusedIntrospection) problems.push(`console.${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    await page.exposeFunction('reportViolation', (v: string) => problems.push(`csp: ${v}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { reportViolation(v: string): void }).reportViolation(
          `${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} in ${e.sourceFile}:${e.lineNumber}`,
        ),
      );
    });

    await page.goto(`${t.url}/graphql`, { waitUntil: 'load', timeout: 120_000 });

    // Opens with the example query and the token header template.
    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor').first();
    const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor').first();
    await headersEditor.waitFor({ timeout: 60_000 });
    expect(shown(await headersEditor.locator('.view-lines').innerText())).toContain(
      '"Authorization": "Bearer <token from POST /api/v1/login>"',
    );
    const example = shown(await queryEditor.locator('.view-lines').innerText());
    expect(example).toContain('product(id: "1")');
    expect(example).toContain('customisations { id name type price }');

    // Replace the template with a real token, as a person would.
    await headersEditor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${token}` }));
    // Monaco auto-closes brackets and quotes; drop what it appended.
    await page.keyboard.press('Shift+ControlOrMeta+End');
    await page.keyboard.press('Delete');

    // The example asks for product "1"; point it at the product this test made.
    if (productId !== '1') {
      await queryEditor.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText(example.replace('product(id: "1")', `product(id: "${productId}")`));
      await page.keyboard.press('Shift+ControlOrMeta+End');
      await page.keyboard.press('Delete');
    }

    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await expect.poll(async () => shown(await response.innerText()), { timeout: 60_000 }).toContain('"data"');
    await fs.promises.mkdir('test-results', { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    const text = shown(await response.innerText());
    expect(text).toContain('"name": "Walnut Writing Desk"');
    expect(text).toContain('"price": 0.29');
    expect(text).toContain('"price": 129.5');
    // What the pane shows is exactly what the API answers directly.
    const direct = await t.graphql(
      `{ product(id: "${productId}") { id name sku steps { id name order components { id name customisations { id name type price } } } } }`,
      { token },
    );
    expect(JSON.parse(text)).toEqual(direct.body);

    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    // Monaco ran its language services as workers loaded from the service's own assets.
    expect([...assets].sort()).toEqual(['editor.worker', 'favicon', 'graphiql', 'graphql.worker', 'init', 'json.worker']);
    await page.close();
  });

  it('opens a second tab with a createProduct mutation that an administrator can run as it is', { timeout: 180_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    await page.goto(`${t.url}/graphql`, { waitUntil: 'load', timeout: 120_000 });
    const tabs = page.locator('.graphiql-tab');
    await expect.poll(() => tabs.count(), { timeout: 60_000 }).toBe(2);
    await tabs.nth(1).click();

    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await expect.poll(async () => shown(await queryEditor.locator('.view-lines').innerText()), { timeout: 60_000 }).toContain(
      'mutation CreateProduct($input: CreateProductInput!)',
    );
    const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor').first();
    await headersEditor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${adminToken}` }));
    await page.keyboard.press('Shift+ControlOrMeta+End');
    await page.keyboard.press('Delete');

    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await expect.poll(async () => shown(await response.innerText()), { timeout: 60_000 }).toContain('"createProduct"');
    const created = JSON.parse(shown(await response.innerText()));
    expect(created.errors).toBeUndefined();
    expect(created.data.createProduct).toMatchObject({ name: 'Walnut Desk', sku: 'DESK-001' });
    const stored = await t.graphql(`query ($id: ID!) { product(id: $id) { sku steps { components { customisations { price } } } } }`, {
      token,
      variables: { id: created.data.createProduct.id },
    });
    expect(stored.body.data.product).toEqual({ sku: 'DESK-001', steps: [{ components: [{ customisations: [{ price: 0 }, { price: 80 }] }] }] });
    await page.close();
  });
});
