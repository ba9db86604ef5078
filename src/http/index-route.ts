import { sendJson } from './respond.ts';
import type { Route } from './router.ts';

/**
 * `GET /`, no token needed: where things are, so that a person or a client that lands on the root
 * finds the API without the docs. Only entry points this instance serves are listed.
 */
export function createIndexRoute(options: { graphiql: boolean; metrics: boolean }): Route {
  const body = {
    name: 'Product Configuration Service',
    links: {
      graphql: {
        href: '/graphql',
        methods: ['POST', 'GET'],
        auth: 'Bearer token',
        ...(options.graphiql ? { browser: 'GraphiQL, with a sign-in panel' } : {}),
      },
      login: { href: '/api/v1/login', methods: ['POST'], auth: 'none: {"email", "password"} answers a token' },
      logout: { href: '/api/v1/logout', methods: ['POST'], auth: 'Bearer token' },
      tokens: { href: '/api/v1/tokens', methods: ['GET', 'POST'], auth: 'Bearer token' },
      openapi: { href: '/api/v1/openapi.json', methods: ['GET'] },
      health: { href: '/health', methods: ['GET'], auth: 'none' },
      ready: { href: '/ready', methods: ['GET'], auth: 'none' },
      ...(options.metrics ? { metrics: { href: '/metrics', methods: ['GET'], auth: 'Bearer METRICS_TOKEN' } } : {}),
    },
  };
  return {
    method: 'GET',
    path: '/',
    auth: false,
    handle: ({ res }) => sendJson(res, 200, body, { 'Cache-Control': 'no-cache' }),
  };
}
