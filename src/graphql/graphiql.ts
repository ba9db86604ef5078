import type { IncomingMessage, ServerResponse } from 'node:http';
// Internal to the pinned render-graphiql (reached through its "./*" export): recheck on upgrade; tests fail if it moves.
import { css, editorWorkerService, favicon, graphqlWorker, js, jsonWorker } from '@graphql-yoga/render-graphiql/graphiql';
import type { GraphiQLOptions } from 'graphql-yoga';
import { HttpError } from '../platform/errors.ts';
import { contentHash, createBodySender, prepareBodies, type Body, type PreparedBody } from '../http/precompressed.ts';
import { GRAPHQL_PATH } from './yoga.ts';

// Served here, not by Yoga: a shell with no inline script, and content-hashed assets compressed once and shared.

export const GRAPHIQL_ASSETS_PATH = `${GRAPHQL_PATH}/assets/`;

const EXAMPLE_QUERY = `# Put your token in the Headers tab below, then run this query.
query Product {
  product(id: "1") {
    id
    name
    sku
    steps {
      id
      name
      order
      components {
        id
        name
        customisations { id name type price }
      }
    }
  }
}
`;

const EXAMPLE_MUTATION = `# Writes need an administrator's token (the catalog:write ability); the demo user is one.
# Run it once: a second run is refused with "The sku has already been taken."
mutation CreateProduct($input: CreateProductInput!) {
  createProduct(input: $input) {
    id
    name
    sku
    updatedAt
    steps {
      id
      name
      order
      components {
        id
        name
        position
        customisations { id name type price }
      }
    }
  }
}
`;

const EXAMPLE_VARIABLES = {
  input: {
    name: 'Walnut Desk',
    sku: 'DESK-001',
    steps: [
      {
        name: 'Choose a size',
        order: 1,
        components: [
          {
            name: 'Top',
            position: 1,
            customisations: [
              { name: '120 cm', type: 'dropdown', price: 0 },
              { name: '160 cm', type: 'dropdown', price: 80 },
            ],
          },
        ],
      },
    ],
  },
};

const HEADERS = JSON.stringify({ Authorization: 'Bearer <token from POST /api/v1/login>' }, null, 2);

const OPTIONS: GraphiQLOptions = {
  title: 'Product Configuration Service',
  defaultQuery: EXAMPLE_QUERY,
  defaultTabs: [
    { query: EXAMPLE_QUERY, headers: HEADERS },
    { query: EXAMPLE_MUTATION, variables: JSON.stringify(EXAMPLE_VARIABLES, null, 2), headers: HEADERS },
  ],
  headers: HEADERS,
  isHeadersEditorEnabled: true,
  shouldPersistHeaders: false,
};

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

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function renderBodies(): Map<string, Body> {
  const bodies = new Map<string, Body>();
  const asset = (name: string, ext: string, contentType: string, content: Buffer) => {
    const path = `${GRAPHIQL_ASSETS_PATH}${name}.${contentHash(content)}.${ext}`;
    bodies.set(path, { contentType, cacheControl: IMMUTABLE, content });
    return path;
  };
  const workers = {
    editorWorkerService: asset('editor.worker', 'js', JS, Buffer.from(editorWorkerService)),
    json: asset('json.worker', 'js', JS, Buffer.from(jsonWorker)),
    graphql: asset('graphql.worker', 'js', JS, Buffer.from(graphqlWorker)),
  };
  const [, faviconBase64] = /^data:image\/x-icon;base64,(.+)$/s.exec(favicon) ?? [];
  if (!faviconBase64) throw new Error('@graphql-yoga/render-graphiql: unexpected favicon format');
  const icon = asset('favicon', 'ico', 'image/x-icon', Buffer.from(faviconBase64, 'base64'));
  const stylesheet = asset('graphiql', 'css', 'text/css; charset=utf-8', Buffer.from(css));
  const bundle = asset('graphiql', 'js', JS, Buffer.from(js));
  // Sets MonacoEnvironment before the deferred bundle reads it; renders once the bundle has run.
  const init = asset(
    'init',
    'js',
    JS,
    Buffer.from(`'use strict';
(function () {
  var workers = ${JSON.stringify(workers)};
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) { return workers[label]; },
  };
  document.addEventListener('DOMContentLoaded', function () {
    var options = JSON.parse(document.getElementById('graphiql-options').textContent);
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
  });
})();
`),
  );
  // `<` escaped so that no option value can close the data block.
  const data = JSON.stringify(OPTIONS).replace(/</g, '\\u003c');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(OPTIONS.title ?? 'GraphiQL')}</title>
<link rel="icon" href="${icon}">
<link rel="stylesheet" href="${stylesheet}">
<script type="application/json" id="graphiql-options">${data}</script>
<script src="${init}" defer></script>
<script src="${bundle}" defer></script>
</head>
<body id="body" class="no-focus-outline">
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
const preparedBodies = () => (prepared ??= prepareBodies(renderedBodies()));

/** GraphiQL's page (at /graphql) and its assets; `start` begins compressing in the background. */
export function createGraphiQL(limits: { maxConcurrentSends: number; sendTimeoutMs: number }) {
  const sender = createBodySender({ maxConcurrent: limits.maxConcurrentSends, timeoutMs: limits.sendTimeoutMs });
  return {
    start(): void {
      // Failures surface on the requests that await it; none may go unhandled meanwhile.
      preparedBodies().catch(() => {});
    },

    async serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
      if (!renderedBodies().has(pathname)) throw new HttpError(404, 'Not found.');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new HttpError(405, 'Method not allowed.', { headers: { Allow: 'GET, HEAD' } });
      }
      await sender.send(req, res, async () => (await preparedBodies()).get(pathname)!);
    },
  };
}

export type GraphiQL = ReturnType<typeof createGraphiQL>;
