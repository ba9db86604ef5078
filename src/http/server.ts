import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AuthService } from '../modules/auth/service.ts';
import type { GraphQLHandler } from '../graphql/yoga.ts';
import { GRAPHQL_PATH } from '../graphql/yoga.ts';
import { HttpError, UNAUTHENTICATED_MESSAGE, BEARER_CHALLENGE, unauthenticatedHttpError } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { clientIp } from './client-ip.ts';
import { sendHttpError, sendJson } from './respond.ts';
import { createRouter, type Route } from './router.ts';

const GRAPHQL_UNAUTHENTICATED_BODY = JSON.stringify({
  errors: [{ message: UNAUTHENTICATED_MESSAGE, extensions: { code: 'UNAUTHENTICATED' } }],
});

/** Requests for the GraphiQL page: the only thing served under /graphql without a token. */
function wantsGraphiQL(req: IncomingMessage, url: URL): boolean {
  return req.method === 'GET' && !url.searchParams.has('query') && (req.headers.accept ?? '').includes('text/html');
}

/**
 * Exactly one Authorization header, or nothing: Node keeps only the first of
 * repeated ones in req.headers, which would let a second header go unnoticed.
 */
function authorizationHeader(req: IncomingMessage): string | undefined {
  const values = req.headersDistinct.authorization;
  return values && values.length === 1 ? values[0] : undefined;
}

/**
 * The node:http dispatcher: REST routes through the tiny router, /graphql to
 * Yoga. Authentication runs here once per request, for REST and GraphQL alike.
 */
export function createRequestListener(deps: {
  routes: readonly Route[];
  graphql: GraphQLHandler;
  auth: AuthService;
  logger: Logger;
  /** Proxy hops whose X-Forwarded-For is believed (config.trustProxy). */
  trustProxy?: number;
}) {
  const { graphql, auth, logger, trustProxy = 0 } = deps;
  const router = createRouter(deps.routes);

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const ip = clientIp(req, trustProxy);

    if (url.pathname === GRAPHQL_PATH) {
      if (wantsGraphiQL(req, url)) return graphql(req, res, { session: null, ip });
      const session = await auth.authenticate(authorizationHeader(req));
      if (!session) {
        res.writeHead(401, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(GRAPHQL_UNAUTHENTICATED_BODY),
          ...BEARER_CHALLENGE,
        });
        res.end(GRAPHQL_UNAUTHENTICATED_BODY);
        return;
      }
      return graphql(req, res, { session, ip });
    }

    const match = router.match(req.method ?? 'GET', url.pathname);
    if (match.kind === 'not-found') throw new HttpError(404, 'Not found.');
    if (match.kind === 'method-not-allowed') {
      throw new HttpError(405, 'Method not allowed.', { headers: { Allow: match.allow.join(', ') } });
    }
    const session = match.route.auth ? await auth.authenticate(authorizationHeader(req)) : null;
    if (match.route.auth && !session) throw unauthenticatedHttpError();
    await match.route.handle({ req, res, url, ip, session, params: match.params });
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    dispatch(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpError) return sendHttpError(res, err);
      logger.error({ err, method: req.method, path: req.url?.split('?')[0] }, 'unhandled request error');
      sendJson(res, 500, { success: false, message: 'Server Error' });
    });
  };
}

export function createHttpServer(listener: http.RequestListener): http.Server {
  return http.createServer(listener);
}
