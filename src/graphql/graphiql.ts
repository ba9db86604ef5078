import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { HttpError } from '../platform/errors.ts';
import { contentHash, createBodySender, prepareBodies, type Body, type PreparedBody } from '../http/precompressed.ts';
import { GRAPHQL_PATH } from './yoga.ts';

// Served here, not by Yoga: a shell with no inline script, and content-hashed assets compressed once and
// shared. The page itself (graphiql 5, React, the sign-in plugin) is src/graphiql-app/, bundled with
// Monaco's workers by scripts/build-graphiql.mjs into dist/graphiql/.

export const GRAPHIQL_ASSETS_PATH = `${GRAPHQL_PATH}/assets/`;

const TITLE = 'Product Configuration Service';
const WORKERS = ['editorWorkerService', 'json', 'graphql'] as const;

/** dist/graphiql/ as seen from dist/src/graphql/ (npm start), else from src/graphql/ (tsx, vitest). */
function bundleDir(): string {
  const candidates = ['../../graphiql/', '../../dist/graphiql/'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  const found = candidates.find((dir) => fs.existsSync(`${dir}built`));
  if (!found) throw new Error('The GraphiQL bundle is missing: run `npm run build` (it writes dist/graphiql/).');
  return found;
}

/**
 * Only what the page loads (checked in chromium by test/e2e/graphiql.test.ts); GraphiQL and Monaco add <style>
 * elements at run time without nonces, hence 'unsafe-inline' for styles only.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; '),
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const JS = 'text/javascript; charset=utf-8';

function renderBodies(): Map<string, Body> {
  const dir = bundleDir();
  const read = (file: string) => fs.readFileSync(`${dir}${file}`);
  const bodies = new Map<string, Body>();
  const asset = (name: string, ext: string, contentType: string, content: Buffer) => {
    const path = `${GRAPHIQL_ASSETS_PATH}${name}.${contentHash(content)}.${ext}`;
    bodies.set(path, { contentType, cacheControl: IMMUTABLE, content });
    return path;
  };
  const workers = Object.fromEntries(
    WORKERS.map((label) => [
      label,
      asset(`${label === 'editorWorkerService' ? 'editor' : label}.worker`, 'js', JS, read(`${label}.worker.js`)),
    ]),
  );
  const icon = asset('favicon', 'svg', 'image/svg+xml', read('favicon.svg'));
  const stylesheet = asset('graphiql', 'css', 'text/css; charset=utf-8', read('page.css'));
  const bundle = asset('graphiql', 'js', JS, read('page.js'));
  // `<` escaped so that no value can close the data block; the page reads it (no inline script).
  const data = JSON.stringify({ workers }).replace(/</g, '\\u003c');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${TITLE}</title>
<link rel="icon" href="${icon}">
<link rel="stylesheet" href="${stylesheet}">
<script type="application/json" id="graphiql-options">${data}</script>
<script src="${bundle}" defer></script>
</head>
<body>
<noscript>You need to enable JavaScript to run GraphiQL.</noscript>
<div id="root"></div>
</body>
</html>
`;
  bodies.set(GRAPHQL_PATH, {
    contentType: 'text/html; charset=utf-8',
    cacheControl: 'no-cache',
    content: Buffer.from(html),
    headers: PAGE_HEADERS,
  });
  return bodies;
}

// Shared by every app in the process: rendered once, compressed once in the background.
let rendered: Map<string, Body> | undefined;
let prepared: Promise<Map<string, PreparedBody>> | undefined;
const renderedBodies = () => (rendered ??= renderBodies());
const preparedBodies = () => (prepared ??= Promise.resolve().then(() => prepareBodies(renderedBodies())));

/** GraphiQL's page (at /graphql) and its assets; `start` begins compressing in the background. Disabled (GRAPHIQL=off): 404 for all. */
export function createGraphiQL(limits: { enabled: boolean; maxConcurrentSends: number; sendTimeoutMs: number }) {
  const sender = createBodySender({ maxConcurrent: limits.maxConcurrentSends, timeoutMs: limits.sendTimeoutMs });
  return {
    start(): void {
      if (!limits.enabled) return;
      // Failures surface on the requests that await it; none may go unhandled meanwhile.
      preparedBodies().catch(() => {});
    },

    async serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
      if (!limits.enabled || !renderedBodies().has(pathname)) throw new HttpError(404, 'Not found.');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new HttpError(405, 'Method not allowed.', { headers: { Allow: 'GET, HEAD' } });
      }
      await sender.send(req, res, async () => (await preparedBodies()).get(pathname)!);
    },
  };
}

export type GraphiQL = ReturnType<typeof createGraphiQL>;
