import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { isDatabaseUnavailable } from '../platform/db-errors.ts';
import { HttpError, serviceUnavailableHttpError, unauthenticatedHttpError } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { requestContext } from '../platform/request-context.ts';
import { withTenant } from '../platform/tenancy.ts';
import { requestHost, type TenantDirectory } from '../modules/tenants/index.ts';
import type { Authenticate } from '../platform/session.ts';
import { clientIp } from './client-ip.ts';
import type { Cors } from './cors.ts';
import type { Lifecycle } from './lifecycle.ts';
import { answerThenDiscard } from './discard-body.ts';
import { httpErrorOf, sendHttpError } from './respond.ts';
import { createRouter, type Endpoint, type Route } from './router.ts';
import { guardSend, type SendLimits } from './send-deadline.ts';
import { createTenantShare, tenantShareExceeded } from './tenant-share.ts';

/** The request target as a URL; one Node accepts but WHATWG URL cannot parse (`//[`) is the client's 400. */
function parseTarget(target: string | undefined): URL {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    throw new HttpError(400, 'Malformed request target.');
  }
}

/** Exactly one Authorization header or none: req.headers keeps only the first, hiding a second. */
function authorizationHeader(req: IncomingMessage): string | undefined {
  const values = req.headersDistinct.authorization;
  return values && values.length === 1 ? values[0] : undefined;
}

/** The request's tenant: unknown hosts are 404 and suspended companies 403, before anything else is read. */
async function tenantOf(
  req: IncomingMessage,
  deps: { lifecycle: Lifecycle; tenants: TenantDirectory; trustProxy: number },
) {
  const tenant = await deps.tenants.resolve(requestHost(req, deps.trustProxy));
  if (tenant === 'unknown') throw new HttpError(404, 'Unknown host.');
  if (tenant.state === 'suspended') throw new HttpError(403, 'This service is suspended.');
  const store = requestContext.getStore();
  if (store) store.tenant = tenant.slug;
  return tenant;
}

/** A request that threw: a refusal in its endpoint's words, a 503 for a database away, else a masked 500. */
function answerFailure(
  err: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: Endpoint | undefined,
  logger: Logger,
): void {
  if (res.headersSent || req.socket.destroyed) {
    // The client went away (mid-body, say): nothing to answer, and not our fault.
    if (req.socket.destroyed)
      logger.debug({ err: { message: (err as Error).message } }, 'client closed the connection');
    res.destroy();
    return;
  }
  // A body left unread is drained before the socket closes: a client still sending it reads the answer.
  const send = (error: HttpError) =>
    answerThenDiscard(req, res, () => (endpoint ? endpoint.sendError(res, error) : sendHttpError(res, error)));
  const refusal = httpErrorOf(err);
  if (refusal) return send(refusal);
  // The database is away (authentication included): a retryable 503, not a 401 or a 500.
  if (isDatabaseUnavailable(err)) {
    logger.warn({ err: { message: (err as Error).message } }, 'database unavailable');
    return send(serviceUnavailableHttpError());
  }
  logger.error({ err, method: req.method }, 'unhandled request error');
  send(new HttpError(500, 'Server Error'));
}

/** The one place a request is routed and authenticated, once, for REST routes and endpoints alike. */
export function createRequestListener(deps: {
  routes: readonly Route[];
  endpoints: readonly Endpoint[];
  authenticate: Authenticate;
  lifecycle: Lifecycle;
  logger: Logger;
  cors: Cors;
  trustProxy: number;
  /** Which customer company a request is for, by its host. */
  tenants: TenantDirectory;
  /** Every response, REST and GraphQL: how long and how much a client that does not read may hold. */
  send: SendLimits;
  /** Requests one tenant may have in flight, every route it reaches; 0: no bound. */
  maxInFlightPerTenant: number;
}) {
  const { endpoints, authenticate, lifecycle, logger, cors, trustProxy } = deps;
  const share = createTenantShare(deps.maxInFlightPerTenant);
  const router = createRouter(deps.routes);
  const endpointOf = (pathname: string) =>
    endpoints.find((e) => pathname === e.path || pathname.startsWith(`${e.path}/`));

  type Match = ReturnType<typeof router.match> | undefined;

  async function dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    endpoint: Endpoint | undefined,
    match: Match,
    /** Counts the request against its tenant's share: false when the share is full. None for the probes. */
    admit?: () => boolean,
  ) {
    const ip = clientIp(req, trustProxy);
    if (lifecycle.phase === 'starting' && !(match?.kind === 'found' && match.route.whileStarting)) {
      throw serviceUnavailableHttpError();
    }
    if (cors.applies(url.pathname)) {
      if (req.method === 'OPTIONS') return cors.preflight(req, res);
      cors.decorate(req, res);
    }
    // After CORS, so a browser can read the refusal; before authentication and the body, so a company's
    // storm costs the others no more than this refusal.
    if (admit && !admit()) throw tenantShareExceeded();

    if (endpoint) {
      // Refused unread, connection closed; a chunked body is cut off by the endpoint itself.
      if (Number(req.headers['content-length'] ?? 0) > endpoint.maxBodyBytes) {
        throw new HttpError(413, 'Request body too large.', { headers: { Connection: 'close' } });
      }
      if (req.headers['transfer-encoding'] !== undefined) res.setHeader('Connection', 'close');
      const session = endpoint.isPublic(req, url) ? null : await authenticate(authorizationHeader(req));
      if (!session && !endpoint.isPublic(req, url)) throw unauthenticatedHttpError();
      return endpoint.handle(req, res, { session, ip, url });
    }

    if (match!.kind === 'not-found') throw new HttpError(404, 'Not found.');
    if (match!.kind === 'method-not-allowed') {
      throw new HttpError(405, 'Method not allowed.', { headers: { Allow: match!.allow.join(', ') } });
    }
    const { route, params } = match!;
    const session = route.auth ? await authenticate(authorizationHeader(req)) : null;
    if (route.auth && !session) throw unauthenticatedHttpError();
    await route.handle({ req, res, url, ip, session, params });
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    guardSend(res, deps.send, logger);
    let endpoint: Endpoint | undefined;
    const answered = (async () => {
      const url = parseTarget(req.url);
      const target = endpointOf(url.pathname);
      const match = target ? undefined : router.match(req.method ?? 'GET', url.pathname);
      // Named before the tenant is checked: a refused request is counted under the route it asked for.
      const store = requestContext.getStore();
      if (store) store.route = target?.path ?? (match?.kind === 'found' ? match.route.path : 'unmatched');
      // Probes and metrics answer for the process, whatever the host.
      if (match?.kind === 'found' && match.route.anyHost) return dispatch(req, res, url, undefined, match);
      // Not migrated yet: the endpoint's own 503, before any host is looked up.
      if (lifecycle.phase === 'starting') {
        endpoint = target;
        throw serviceUnavailableHttpError();
      }
      const tenant = await tenantOf(req, deps);
      endpoint = target;
      const admit = () => share.admit(tenant.id, res);
      await withTenant(tenant.id, () => dispatch(req, res, url, target, match, admit));
    })();
    answered.catch((err: unknown) => answerFailure(err, req, res, endpoint, logger));
  };
}

/** Node enforces headersTimeout and requestTimeout only when its connection check runs, so that runs often. */
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
