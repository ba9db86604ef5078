import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AuthService } from '../modules/auth/service.ts';
import { GRAPHIQL_ASSETS_PATH, type GraphiQL } from '../graphql/graphiql.ts';
import type { GraphQLHandler } from '../graphql/yoga.ts';
import { GRAPHQL_PATH } from '../graphql/yoga.ts';
import { MASKED_ERROR_MESSAGE } from '../graphql/request-errors.ts';
import { isDatabaseUnavailable, SERVICE_UNAVAILABLE_MESSAGE } from '../platform/db-errors.ts';
import {
  HttpError,
  UNAUTHENTICATED_MESSAGE,
  BEARER_CHALLENGE,
  serviceUnavailableHttpError,
  unauthenticatedHttpError,
} from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { requestContext } from '../platform/request-context.ts';
import { clientIp } from './client-ip.ts';
import { isCorsPath, type Cors } from './cors.ts';
import { sendHttpError, sendJson } from './respond.ts';
import { createRouter, type Route } from './router.ts';

const GRAPHQL_UNAUTHENTICATED_BODY = JSON.stringify({
  errors: [{ message: UNAUTHENTICATED_MESSAGE, extensions: { code: 'UNAUTHENTICATED' } }],
});
const GRAPHQL_UNAVAILABLE_BODY = {
  errors: [{ message: SERVICE_UNAVAILABLE_MESSAGE, extensions: { code: 'SERVICE_UNAVAILABLE' } }],
};

// The same masked error Yoga gives for a failing resolver, for failures before Yoga runs.
const GRAPHQL_INTERNAL_ERROR_BODY = {
  errors: [{ message: MASKED_ERROR_MESSAGE, extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
};

const GRAPHQL_TOO_LARGE_BODY = JSON.stringify({
  errors: [{ message: 'Request body too large.', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }],
});

const GRAPHQL_TOO_MANY_IN_FLIGHT_BODY = JSON.stringify({
  errors: [{ message: 'Too many requests in flight for this token.', extensions: { code: 'TOO_MANY_REQUESTS' } }],
});

/** The request target as a URL; one Node accepts but WHATWG URL cannot parse (`//[`) is the client's 400. */
function parseTarget(target: string | undefined): URL {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    throw new HttpError(400, 'Malformed request target.');
  }
}

/**
 * GraphQL requests in flight per token: authenticated and not yet answered. A
 * response counts until its body has left Node (handed to the socket), so one
 * client can hold neither every pooled connection nor more response buffers
 * than the limit. Done responses are swept when the limit is reached: 'finish'
 * can come after a keep-alive client has already sent its next request.
 */
function createInFlightCounter(limit: number) {
  const responses = new Map<string, Set<ServerResponse>>();
  const done = (res: ServerResponse) => res.destroyed || res.writableFinished || (res.writableEnded && res.writableLength === 0);
  return {
    enter(tokenId: string, res: ServerResponse): boolean {
      let open = responses.get(tokenId);
      if (open && open.size >= limit) for (const r of open) if (done(r)) open.delete(r);
      if (open && open.size >= limit) return false;
      if (!open) responses.set(tokenId, (open = new Set()));
      open.add(res);
      res.once('close', () => {
        open.delete(res);
        if (open.size === 0 && responses.get(tokenId) === open) responses.delete(tokenId);
      });
      return true;
    },
  };
}

/** Requests for the GraphiQL page: with its assets, the only thing served under /graphql without a token. */
function wantsGraphiQL(req: IncomingMessage, url: URL): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    !url.searchParams.has('query') &&
    (req.headers.accept ?? '').includes('text/html')
  );
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
  graphiql: GraphiQL;
  auth: AuthService;
  logger: Logger;
  cors: Cors;
  graphqlMaxBodyBytes: number;
  /** Proxy hops whose X-Forwarded-For is believed (config.trustProxy). */
  trustProxy?: number;
  /** GraphQL requests one token may have in flight at once (config.graphqlMaxInFlightPerToken). */
  graphqlMaxInFlightPerToken: number;
}) {
  const { graphql, graphiql, auth, logger, cors, graphqlMaxBodyBytes, trustProxy = 0 } = deps;
  const router = createRouter(deps.routes);
  const inFlight = createInFlightCounter(deps.graphqlMaxInFlightPerToken);

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = parseTarget(req.url);
    const ip = clientIp(req, trustProxy);

    if (isCorsPath(url.pathname)) {
      if (req.method === 'OPTIONS') return cors.preflight(req, res);
      cors.decorate(req, res);
    }

    if (url.pathname === GRAPHQL_PATH) {
      // A declared length over the limit is refused unread; a chunked body is cut
      // off by Yoga's maxRequestBodySize, and the connection then closed so the
      // rest of it is never read either.
      if (Number(req.headers['content-length'] ?? 0) > graphqlMaxBodyBytes) {
        res.writeHead(413, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(GRAPHQL_TOO_LARGE_BODY),
          Connection: 'close',
        });
        res.end(GRAPHQL_TOO_LARGE_BODY);
        return;
      }
      if (req.headers['transfer-encoding'] !== undefined) res.setHeader('Connection', 'close');
      if (wantsGraphiQL(req, url)) return graphiql.serve(req, res, url.pathname);
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
      if (!inFlight.enter(session.tokenId, res)) {
        res.writeHead(429, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(GRAPHQL_TOO_MANY_IN_FLIGHT_BODY),
          'Retry-After': '1',
        });
        res.end(GRAPHQL_TOO_MANY_IN_FLIGHT_BODY);
        return;
      }
      // Aborted by the execution deadline or when the client goes away: the
      // database layer then stops the request's statements (platform/abort.ts).
      const controller = new AbortController();
      const store = requestContext.getStore();
      if (store) store.controller = controller;
      res.once('close', () => {
        if (!res.writableFinished) controller.abort();
      });
      return graphql(req, res, { session, ip });
    }

    if (url.pathname.startsWith(GRAPHIQL_ASSETS_PATH)) return graphiql.serve(req, res, url.pathname);

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
      if (res.headersSent || req.socket.destroyed) {
        // The client went away (mid-body, say): nothing to answer, and not our fault.
        if (req.socket.destroyed) logger.debug({ err: { message: (err as Error).message } }, 'client closed the connection');
        res.destroy();
        return;
      }
      if (err instanceof HttpError) return sendHttpError(res, err);
      // The database is away (authentication included): a retryable 503, not a 401 or a 500.
      if (isDatabaseUnavailable(err)) {
        logger.warn({ err: { message: (err as Error).message }, path: req.url?.split('?')[0] }, 'database unavailable');
        const unavailable = serviceUnavailableHttpError();
        if (req.url?.split('?')[0] === GRAPHQL_PATH) {
          return sendJson(res, 503, GRAPHQL_UNAVAILABLE_BODY, unavailable.options.headers);
        }
        return sendHttpError(res, unavailable);
      }
      const path = req.url?.split('?')[0];
      logger.error({ err, method: req.method, path }, 'unhandled request error');
      if (path === GRAPHQL_PATH) return sendJson(res, 500, GRAPHQL_INTERNAL_ERROR_BODY);
      sendJson(res, 500, { success: false, message: 'Server Error' });
    });
  };
}

/**
 * Slow or idle clients must not hold sockets: a request head must arrive within
 * headersTimeout, the whole request within requestTimeout, and an idle
 * keep-alive connection is closed after keepAliveTimeout. Node enforces the first
 * two only when its connection check runs, so that runs often enough to matter.
 */
export function createHttpServer(
  listener: http.RequestListener,
  timeouts: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number },
): http.Server {
  return http.createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeouts.headersTimeoutMs / 4))),
    },
    listener,
  );
}
