import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sendJson } from './respond.ts';
import type { Route } from './router.ts';

/** The OpenAPI 3.1 description of the REST routes, kept beside the code (docs/openapi.json) and tested against real answers. */
export const OPENAPI_PATH = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));
export const OPENAPI_ROUTE = '/api/v1/openapi.json';

/** Read once at start: the document is public, so it needs no token, like the GraphiQL page. */
export function createOpenApiRoute(): Route {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as unknown;
  return {
    method: 'GET',
    path: OPENAPI_ROUTE,
    auth: false,
    handle: ({ res }) => sendJson(res, 200, document, { 'Cache-Control': 'no-cache' }),
  };
}
