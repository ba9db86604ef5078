import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GRAPHIQL_ASSETS_PATH } from '../graphql/graphiql.ts';
import { GRAPHQL_PATH } from '../graphql/yoga.ts';
import type { Logger } from '../platform/logger.ts';
import type { LoginOutcome, Metrics } from '../platform/metrics.ts';
import { requestContext, type RequestContext } from '../platform/request-context.ts';
import { SERVICE_UNAVAILABLE_MESSAGE } from '../platform/db-errors.ts';
import type { Lifecycle } from './lifecycle.ts';
import { sendJson } from './respond.ts';
import { createRouter, type Route } from './router.ts';

/** An incoming id we can safely echo and log; anything else is replaced by a fresh one. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const LOGIN_PATH = '/api/v1/login';
/** Served while the service is still starting: probes and metrics. */
const PROBE_PATHS = new Set(['/health', '/ready', '/metrics']);

function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname.slice(0, 512);
  } catch {
    return '(unparsable)';
  }
}

/** A bounded label: the route's pattern, never the raw path (ids would explode the series). */
function routeLabeller(routes: readonly Route[]) {
  const router = createRouter(routes);
  return (method: string, pathname: string): string => {
    if (pathname === GRAPHQL_PATH) return GRAPHQL_PATH;
    if (pathname.startsWith(GRAPHIQL_ASSETS_PATH)) return `${GRAPHIQL_ASSETS_PATH}{asset}`;
    const match = router.match(method, pathname);
    if (match.kind !== 'found') return 'unmatched';
    const path = match.route.path;
    if (typeof path === 'string') return path;
    return path.source
      .replace(/^\^/, '')
      .replace(/\$$/, '')
      .replace(/\(\?<(\w+)>[^)]*\)/g, '{$1}')
      .replace(/\\(.)/g, '$1');
  };
}

function loginOutcome(status: number): LoginOutcome {
  if (status === 200) return 'ok';
  if (status === 401) return 'failed';
  if (status === 429) return 'throttled';
  if (status === 400 || status === 413 || status === 415 || status === 422) return 'invalid';
  if (status === 503) return 'unavailable';
  return 'error';
}

/**
 * Wraps the dispatcher: a request id (the client's X-Request-Id when sane, else
 * new) on the response and on every log line of the request, one access line and
 * the request metrics when it ends, and the lifecycle (503 while starting,
 * `Connection: close` while draining).
 */
export function observeRequests(
  listener: http.RequestListener,
  deps: { logger: Logger; metrics: Metrics; lifecycle: Lifecycle; routes: readonly Route[] },
): http.RequestListener {
  const { logger, metrics, lifecycle } = deps;
  const routeOf = routeLabeller(deps.routes);

  return (req: IncomingMessage, res: ServerResponse) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const store: RequestContext = {
      reqId: typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID(),
    };
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    res.setHeader('X-Request-Id', store.reqId);
    // Every answer, whatever produced it: browsers must not guess a type we did not send.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    lifecycle.track(res);

    let ended = false;
    let finished = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
      // Closed before the response was complete: the client went away, or the drain
      // or a send timeout cut it. Node also emits 'finish', and reports
      // writableFinished, for a response whose socket was destroyed with its body
      // still buffered: only a finish before the response was destroyed counts.
      const aborted = !finished;
      const status = aborted ? 499 : res.statusCode;
      const route = routeOf(method, path);
      const operationName = path === GRAPHQL_PATH ? (store.operationName ?? null) : undefined;
      requestContext.run(store, () =>
        logger.info({ method, path, status, durationMs, operationName, ...(aborted ? { aborted } : {}) }, 'request'),
      );
      metrics.observeRequest({ method, route, status, operation: operationName, durationMs });
      if (route === LOGIN_PATH && method === 'POST') metrics.countLogin(loginOutcome(status));
    };
    res.once('finish', () => {
      finished = !res.destroyed;
      end();
    });
    res.once('close', end);

    requestContext.run(store, () => {
      if (lifecycle.phase === 'starting' && !PROBE_PATHS.has(path)) {
        const headers = { 'Retry-After': '5', 'Cache-Control': 'no-store' };
        if (path === GRAPHQL_PATH) {
          return sendJson(res, 503, { errors: [{ message: SERVICE_UNAVAILABLE_MESSAGE, extensions: { code: 'SERVICE_UNAVAILABLE' } }] }, headers);
        }
        return sendJson(res, 503, { success: false, message: SERVICE_UNAVAILABLE_MESSAGE }, headers);
      }
      listener(req, res);
    });
  };
}
