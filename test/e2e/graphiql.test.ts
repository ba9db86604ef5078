import fs from 'node:fs';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProductTrees } from '../../src/modules/catalog/tools.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

// GraphiQL as people use it: Debian's chromium (.ci/run installs it) driven by
// playwright-core, against a running app, with no network beyond this machine.
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = 'test-results/graphiql.png';

let t: TestApp;
let browser: Browser;
let user: { email: string; password: string };
let admin: { email: string; password: string };
let token: string;
let productId: string;
beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install -y chromium\` (.ci/run does).`);
  }
  t = await startTestApp();
  user = await t.createUser({ name: 'Ada Lovelace' });
  token = await t.login(user.email, user.password);
  admin = await t.createUser({ isAdmin: true });
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

// One line: Monaco indents every typed newline, which would skew a pasted multi-line query.
const NESTED = (id: string) =>
  `query Nested { product(id: "${id}") { id name sku steps { id name order components { id name customisations { id name type price } } } } }`;

/** Replaces what a Monaco editor holds, as a person would (Monaco auto-closes brackets: drop what it appended). */
async function typeInto(page: Page, editor: Locator, text: string) {
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Shift+ControlOrMeta+End');
  await page.keyboard.press('Delete');
}

const queryEditor = (page: Page) => page.locator('.graphiql-query-editor .monaco-editor').first();
const responsePane = (page: Page) => page.locator('.graphiql-response');
const responseText = async (page: Page) => shown(await responsePane(page).innerText());

async function run(page: Page) {
  await page.locator('.graphiql-execute-button').click();
}

/** Signs in through the Account panel, which a page without a token opens by itself. */
async function signIn(page: Page, who: { email: string; password: string }) {
  const panel = page.locator('section.pcs-sign-in');
  await panel.getByLabel('Email').fill(who.email);
  await panel.getByLabel('Password').fill(who.password);
  await panel.getByRole('button', { name: 'Sign in' }).click();
  await expect
    .poll(
      () =>
        page
          .getByTestId('signed-in-user')
          .textContent()
          .catch(() => ''),
      { timeout: 30_000 },
    )
    .toContain(who.email);
}

describe('GraphiQL in chromium', () => {
  it(
    'signs in from its panel, runs the nested query in two tabs, shows Docs, survives a reload and signs out',
    { timeout: 240_000 },
    async () => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const foreign: string[] = [];
      const assets = new Set<string>();
      const logins: string[] = [];
      page.on('request', (request) => {
        const host = foreignHost(request.url());
        if (host) foreign.push(host);
        const asset = /\/graphql\/assets\/([\w.-]+?)\.[0-9a-f]{16}\./.exec(request.url());
        if (asset) assets.add(asset[1]!);
        if (request.url().endsWith('/api/v1/login') || request.url().endsWith('/api/v1/logout'))
          logins.push(new URL(request.url()).pathname);
      });
      // The page must run under its Content-Security-Policy without a violation or an error:
      // chromium reports a refused script, style, worker or fetch as a console error.
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() !== 'error' && message.type() !== 'warning') return;
        // Expected: the schema fetch before signing in, and the query after signing out, are refused.
        const refused = message.location().url === `${t.url}/graphql` && message.text().includes('status of 401');
        if (!refused) problems.push(`console.${message.type()}: ${message.text()}`);
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
      await queryEditor(page).waitFor({ timeout: 60_000 });
      // Three example tabs (a query, a mutation, Configure), whose comments no longer ask for a pasted token.
      const tabs = page.locator('.graphiql-tab');
      await expect.poll(() => tabs.count(), { timeout: 60_000 }).toBe(3);
      // A tab is named after its operation.
      await expect.poll(() => tabs.nth(2).innerText(), { timeout: 30_000 }).toContain('Configure');
      const example = shown(await queryEditor(page).locator('.view-lines').innerText());
      expect(example).toContain('product(id: "1")');
      expect(example).toContain('Sign in with the Account panel');
      expect(example).not.toContain('Headers tab');
      // Issue 30 item 8: before sign-in the schema fetch was sent anyway, and its 401 filled the response pane.
      await page.waitForTimeout(1_000);
      expect(await responseText(page)).not.toContain('Unauthenticated.');

      await signIn(page, user);
      const panelText = await page.locator('section.pcs-sign-in').innerText();
      expect(panelText).toContain('Ada Lovelace');
      expect(panelText).toContain('* (all your role allows)');
      // The token is this tab's alone: sessionStorage, never localStorage.
      const panelToken = (await page.evaluate(() => sessionStorage.getItem('pcs:token')))!;
      expect(panelToken).toMatch(/^\d+\|/);
      expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(token.split('|')[0] + '|');

      // Docs work straight after signing in: the schema was fetched again with the token.
      await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      const docs = page.locator('.graphiql-doc-explorer');
      await docs.getByText('Query', { exact: true }).first().click();
      await expect.poll(async () => docs.innerText(), { timeout: 30_000 }).toContain('Product');

      // The nested query, in the first tab and in a new one: both carry the token.
      await typeInto(page, queryEditor(page), NESTED(productId));
      await run(page);
      await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain('"Walnut Writing Desk"');
      const direct = await t.graphql(
        `{ product(id: "${productId}") { id name sku steps { id name order components { id name customisations { id name type price } } } } }`,
        { token },
      );
      expect(JSON.parse(await responseText(page))).toEqual(direct.body);
      await page.getByRole('button', { name: 'New tab' }).click();
      await expect.poll(() => tabs.count()).toBe(4);
      await typeInto(page, queryEditor(page), NESTED(productId));
      await run(page);
      await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain('"price": 0.29');
      expect(JSON.parse(await responseText(page))).toEqual(direct.body);
      await page.getByRole('button', { name: 'Show Account' }).click();
      await fs.promises.mkdir('test-results', { recursive: true });
      await page.screenshot({ path: SCREENSHOT });

      // The address names the active operation: reloading it opens the page (not JSON) with that
      // query, still signed in, and adds no empty tab.
      expect(decodeURIComponent(new URL(page.url()).searchParams.get('query') ?? '')).toContain('query Nested');
      await page.reload({ waitUntil: 'load' });
      await queryEditor(page).waitFor({ timeout: 60_000 });
      await expect.poll(() => tabs.count(), { timeout: 30_000 }).toBe(4);
      expect(shown(await queryEditor(page).locator('.view-lines').innerText())).toContain('query Nested');
      // A tab opened right before a reload survives it (GraphiQL itself stores its tabs 500 ms after a change).
      await page.getByRole('button', { name: 'New tab' }).click();
      await expect.poll(() => tabs.count()).toBe(5);
      await page.reload({ waitUntil: 'load' });
      await queryEditor(page).waitFor({ timeout: 60_000 });
      await expect.poll(() => tabs.count(), { timeout: 30_000 }).toBe(5);
      const shared = `{ me { user { email } } }`;
      await page.goto(`${t.url}/graphql?query=${encodeURIComponent(shared)}`, { waitUntil: 'load' });
      await expect
        .poll(async () => shown(await queryEditor(page).locator('.view-lines').innerText()), { timeout: 60_000 })
        .toContain(shared);
      await run(page);
      await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain(user.email);

      // Signing out ends the token on the server: the next query is refused. (The panel stayed open across the reload.)
      if (await page.getByRole('button', { name: 'Show Account' }).isVisible())
        await page.getByRole('button', { name: 'Show Account' }).click();
      await page.locator('section.pcs-sign-in').getByRole('button', { name: 'Sign out' }).click();
      await page.locator('section.pcs-sign-in').getByLabel('Email').waitFor();
      expect(await page.evaluate(() => sessionStorage.getItem('pcs:token'))).toBeNull();
      await run(page);
      await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain('Unauthenticated.');
      expect((await t.graphql('{ me { user { id } } }', { token: panelToken })).status).toBe(401);
      expect((await t.graphql('{ me { user { id } } }', { token })).status).toBe(200);
      expect(logins).toEqual(['/api/v1/login', '/api/v1/logout']);

      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      // Monaco ran its language services as workers loaded from the service's own assets.
      expect([...assets].sort()).toEqual(['editor.worker', 'favicon', 'graphiql', 'graphql.worker', 'json.worker']);
      await page.close();
    },
  );

  it(
    'opens a second tab with a createProduct mutation that an administrator can run as it is',
    { timeout: 180_000 },
    async () => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
      await page.goto(`${t.url}/graphql`, { waitUntil: 'load', timeout: 120_000 });
      // A wrong password is refused in the panel, with the service's words.
      const panel = page.locator('section.pcs-sign-in');
      await panel.getByLabel('Email').fill(admin.email);
      await panel.getByLabel('Password').fill('not-the-password');
      await panel.getByRole('button', { name: 'Sign in' }).click();
      await expect
        .poll(
          () =>
            panel
              .getByRole('alert')
              .textContent()
              .catch(() => ''),
          { timeout: 30_000 },
        )
        .toBe('Invalid credentials.');
      await signIn(page, admin);
      const tabs = page.locator('.graphiql-tab');
      await expect.poll(() => tabs.count(), { timeout: 60_000 }).toBe(3);
      // Tabs are renamed after their operations once the page settles; click the settled tab, once (issue 30
      // item 8: the first click after signing in was lost to a stale framer-motion transform; see style.css).
      await expect.poll(() => tabs.nth(2).innerText(), { timeout: 30_000 }).toContain('Configure');
      await tabs.nth(1).locator('.graphiql-tab-button').click();
      await expect.poll(() => tabs.nth(1).getAttribute('class'), { timeout: 10_000 }).toContain('graphiql-tab-active');
      await expect
        .poll(async () => shown(await queryEditor(page).locator('.view-lines').innerText()), { timeout: 60_000 })
        .toContain('mutation CreateProduct($input: CreateProductInput!)');
      await run(page);
      await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain('"createProduct"');
      const created = JSON.parse(await responseText(page));
      expect(created.errors).toBeUndefined();
      expect(created.data.createProduct).toMatchObject({ name: 'Walnut Desk', sku: 'DESK-001' });
      const stored = await t.graphql(
        `query ($id: ID!) { product(id: $id) { sku steps { components { customisations { price } } } } }`,
        {
          token,
          variables: { id: created.data.createProduct.id },
        },
      );
      expect(stored.body.data.product).toEqual({
        sku: 'DESK-001',
        steps: [{ components: [{ customisations: [{ price: 0 }, { price: 80 }] }] }],
      });
      await page.close();
    },
  );

  it('shows the opening comments whole at 1920 px with the Account panel open', async () => {
    // Issue 30 item 8: the examples' comment lines ran past the query editor's right edge.
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    await page.goto(`${t.url}/graphql`, { waitUntil: 'load', timeout: 120_000 });
    await queryEditor(page).waitFor({ timeout: 60_000 });
    await page.locator('section.pcs-sign-in').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.locator('.graphiql-query-editor .view-line').count(), { timeout: 30_000 })
      .toBeGreaterThan(3);
    const overflow = await page.evaluate(() => {
      const editor = document.querySelector('.graphiql-query-editor .monaco-editor')!.getBoundingClientRect();
      return [...document.querySelectorAll('.graphiql-query-editor .view-line')]
        .filter((line) => line.firstElementChild!.getBoundingClientRect().right > editor.right)
        .map((line) => line.textContent);
    });
    expect(overflow).toEqual([]);
    await page.close();
  });
});
