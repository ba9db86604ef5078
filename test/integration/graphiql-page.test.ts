import type net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { request, stalledRequest, type RawResponse } from '../support/raw-http.ts';

// GraphiQL is served without a token to anyone: it must be cheap to send, and a
// client that never reads must not hold the service's memory or its send slots.

const HTML = { accept: 'text/html' };
const ASSET = /\/graphql\/assets\/[\w.-]+/g;

let t: TestApp;
let page: RawResponse;
/** Every asset the page loads (directly, or named by its init script), by path. */
const assets = new Map<string, RawResponse>();
/** The largest asset: what a client that wants to hold memory would ask for. */
let largest: string;

beforeAll(async () => {
  t = await startTestApp();
  page = await request(t.url, '/graphql', { headers: HTML });
  const queue = [...page.text.matchAll(ASSET)].map(([p]) => p);
  for (const path of queue) {
    if (assets.has(path)) continue;
    const res = await request(t.url, path);
    assets.set(path, res);
    if (res.headers['content-type']?.startsWith('text/javascript'))
      queue.push(...[...res.text.matchAll(ASSET)].map(([p]) => p));
  }
  largest = [...assets].sort(([, a], [, b]) => b.body.length - a.body.length)[0]![0];
});
afterAll(async () => {
  await t?.close();
});

const get = (app: TestApp, path: string, headers: Record<string, string> = {}) => request(app.url, path, { headers });

describe('the GraphiQL page', () => {
  it('is a small HTML shell with no inline script, naming its content-hashed bundle and workers as data', () => {
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body.length).toBeLessThan(4096);
    for (const [tag] of page.text.matchAll(/<script[^>]*>/g)) expect(tag).toMatch(/ src="|type="application\/json"/);
    const data = /<script type="application\/json" id="graphiql-options">(.*?)<\/script>/s.exec(page.text)![1]!;
    expect(Object.keys(JSON.parse(data).workers).sort()).toEqual(['editorWorkerService', 'graphql', 'json']);
    // No token, no header template: the page signs in by itself.
    expect(page.text).not.toMatch(/Bearer|Authorization/);
    const names = [...assets.keys()].map((p) =>
      p.replace(/^\/graphql\/assets\//, '').replace(/\.[0-9a-f]{16}\./, '.*.'),
    );
    expect(names.sort()).toEqual(
      [
        'editor.worker.*.js',
        'favicon.*.svg',
        'graphiql.*.css',
        'graphiql.*.js',
        'graphql.worker.*.js',
        'json.worker.*.js',
      ].sort(),
    );
  });

  it('is what a browser gets for /graphql?query=… (reload, bookmark, share); API clients still get JSON', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    const shared = await get(t, `/graphql?query=${encodeURIComponent('{ me { user { id } } }')}`, { accept: browser });
    expect(shared.status).toBe(200);
    expect(shared.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(shared.text).toBe(page.text);
    // Without a token an API client's GET is refused as before, whatever else it accepts.
    for (const accept of [
      'application/json',
      'application/graphql-response+json, application/json;q=0.9',
      '*/*',
      'application/json, text/html;q=0.5',
    ]) {
      const api = await get(t, '/graphql?query=%7B__typename%7D', { accept });
      expect(api.status).toBe(401);
      expect(JSON.parse(api.text).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  it('is off with GRAPHIQL=off: 404 for the page and its assets, the API unchanged', async () => {
    const off = await startTestApp({ env: { GRAPHIQL: 'off' } });
    try {
      expect((await get(off, '/graphql', HTML)).status).toBe(404);
      expect((await get(off, `/graphql?query=${encodeURIComponent('{ __typename }')}`, HTML)).status).toBe(404);
      expect((await get(off, [...assets.keys()][0]!)).status).toBe(404);
      expect((await get(off, '/graphql', { accept: 'application/json' })).status).toBe(401);
      const index = JSON.parse((await get(off, '/')).text);
      expect(index.links.graphql.browser).toBeUndefined();
    } finally {
      await off.close();
    }
  });

  it('serves the page and every asset compressed with br and gzip, far below the old 9 MB', async () => {
    const totals = { identity: 0, br: 0, gzip: 0 };
    for (const [path, plain] of [['/graphql', page] as const, ...assets]) {
      expect(plain.headers['content-encoding']).toBeUndefined();
      totals.identity += plain.body.length;
      for (const [encoding, decode] of [
        ['br', zlib.brotliDecompressSync],
        ['gzip', zlib.gunzipSync],
      ] as const) {
        // A browser's header: both offered, br preferred whatever the order.
        const res = await get(t, path, {
          ...HTML,
          'accept-encoding': encoding === 'br' ? 'gzip, deflate, br' : 'gzip',
        });
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(res.headers.vary).toContain('Accept-Encoding');
        expect(Number(res.headers['content-length'])).toBe(res.body.length);
        expect(decode(res.body).equals(plain.body)).toBe(true);
        totals[encoding] += res.body.length;
      }
    }
    // Yoga's page was 9,054,263 bytes, uncompressed, on every visit; the bundle built here is ~7.3 MB.
    expect(totals.identity).toBeGreaterThan(5_000_000);
    expect(totals.br).toBeLessThan(3_000_000);
    expect(totals.gzip).toBeLessThan(3_000_000);
    expect(
      (await get(t, largest, { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding'],
    ).toBeUndefined();
  });

  it('answers a matching If-None-Match with 304; hashed assets are cached for good, the page revalidated', async () => {
    for (const path of ['/graphql', largest]) {
      const first = await get(t, path, { ...HTML, 'accept-encoding': 'br' });
      const etag = first.headers.etag!;
      expect(etag).toMatch(/^"[^"]+"$/);
      const again = await get(t, path, { ...HTML, 'accept-encoding': 'br', 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(etag);
      // Another encoding is another representation, with its own validator.
      const gzip = await get(t, path, { ...HTML, 'accept-encoding': 'gzip', 'if-none-match': etag });
      expect(gzip.status).toBe(200);
    }
    expect(page.headers['cache-control']).toBe('no-cache');
    for (const res of assets.values()) expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers HEAD without a body, unknown assets with 404 and other methods with 405', async () => {
    for (const path of ['/graphql', largest]) {
      const head = await request(t.url, path, { method: 'HEAD', headers: HTML });
      expect(head.status).toBe(200);
      expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
      expect(head.body.length).toBe(0);
    }
    expect((await get(t, '/graphql/assets/graphiql.0000000000000000.js')).status).toBe(404);
    expect((await get(t, '/graphql/assets/')).status).toBe(404);
    const post = await request(t.url, largest, { method: 'POST', body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('forbids framing and anything the page does not load itself; nosniff on every response', async () => {
    const csp = String(page.headers['content-security-policy']);
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ]) {
      expect(csp.split('; ')).toContain(directive);
    }
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const restNotFound = await get(t, '/api/v1/nothing-here');
    const graphqlUnauthenticated = await request(t.url, '/graphql', {
      method: 'POST',
      body: { query: '{ __typename }' },
    });
    expect(restNotFound.status).toBe(404);
    expect(graphqlUnauthenticated.status).toBe(401);
    const responses = [page, ...assets.values(), restNotFound, graphqlUnauthenticated, await get(t, '/health')];
    for (const res of responses) expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('clients that never read', () => {
  const held: net.Socket[] = [];
  const apps: TestApp[] = [];
  const startApp = async (env: Record<string, string>) => {
    const app = await startTestApp({ env, database: t.database });
    apps.push(app);
    return app;
  };
  /** Stalled clients asking for the largest asset uncompressed, once `app` has taken them all on. */
  async function stall(app: TestApp, count: number) {
    for (let i = 0; i < count; i++) held.push(stalledRequest(app.url, largest));
    await expect
      .poll(async () => (await request(app.url, largest, { method: 'HEAD' })).status, { timeout: 10_000 })
      .toBe(503);
  }
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    for (const app of apps) await app.close();
  });

  it('get 503 with Retry-After beyond GRAPHIQL_MAX_CONCURRENT_SENDS; the slots come back when they go', async () => {
    const app = await startApp({ GRAPHIQL_MAX_CONCURRENT_SENDS: '2', GRAPHIQL_SEND_TIMEOUT_MS: '60000' });
    await stall(app, 2);
    const busy = await get(app, '/graphql', HTML);
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.headers['x-content-type-options']).toBe('nosniff');
    expect(busy.text).toMatch(/retry/i);
    // The API itself is not limited by GraphiQL's slots.
    expect((await get(app, '/health')).status).toBe(200);
    for (const socket of held.splice(0)) socket.destroy();
    await expect.poll(async () => (await get(app, '/graphql', HTML)).status, { timeout: 5_000 }).toBe(200);
  });

  it('are cut off after GRAPHIQL_SEND_TIMEOUT_MS, and their slot freed', async () => {
    const app = await startApp({ GRAPHIQL_MAX_CONCURRENT_SENDS: '1', GRAPHIQL_SEND_TIMEOUT_MS: '300' });
    const socket = stalledRequest(app.url, largest);
    held.push(socket);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await sleep(1_000);
    // What the client still gets once it reads: a head promising more than ever arrives.
    let received = '';
    socket.setEncoding('latin1').on('data', (c: string) => (received += c));
    socket.resume();
    await closed;
    const [head, body] = [
      received.slice(0, received.indexOf('\r\n\r\n')),
      received.slice(received.indexOf('\r\n\r\n') + 4),
    ];
    const length = Number(/content-length: (\d+)/i.exec(head)![1]);
    expect(body.length).toBeLessThan(length);
    const aborted = () => app.logs.lines.map((l) => JSON.parse(l)).find((l) => l.path === largest && l.aborted);
    await expect.poll(aborted).toBeTruthy();
    // The log's clock starts a moment before the timer's: allow it a millisecond.
    expect(aborted().durationMs).toBeGreaterThanOrEqual(299);
    expect((await get(app, largest)).status).toBe(200);
  });

  it('20 of them hold one shared copy of the asset, not 20', async () => {
    const app = await startApp({ GRAPHIQL_MAX_CONCURRENT_SENDS: '20' });
    expect((await get(app, largest)).status).toBe(200);
    await sleep(200);
    const before = process.memoryUsage().rss;
    await stall(app, 20);
    await sleep(500);
    const grown = process.memoryUsage().rss - before;
    // A copy per socket would be 20 × the asset (over 90 MiB, and 20 × 9 MB with
    // the old page); what stays is per-connection bookkeeping plus GC noise.
    expect(assets.get(largest)!.body.length * 20).toBeGreaterThan(90 * 2 ** 20);
    expect(grown).toBeLessThan(40 * 2 ** 20);
  });
});
