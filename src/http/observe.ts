import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../platform/logger.ts';
import type { Metrics } from '../platform/metrics.ts';
import { requestContext, type RequestContext } from '../platform/request-context.ts';
import type { Lifecycle } from './lifecycle.ts';

/** An incoming id we can safely echo and log; anything else is replaced by a fresh one. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname.slice(0, 512);
  } catch {
    return '(unparsable)';
  }
}

/** Labelled by the matched route, never the raw path: ids in paths would explode the metric series. */
export function observeRequests(
  listener: http.RequestListener,
  deps: { logger: Logger; metrics: Metrics; lifecycle: Lifecycle },
): http.RequestListener {
  const { logger, metrics, lifecycle } = deps;

  return (req: IncomingMessage, res: ServerResponse) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const store: RequestContext = {
      reqId: typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID(),
    };
    const method = req.method ?? 'GET';
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
      // Node also emits 'finish' for a response destroyed with its body still buffered: that one was aborted.
      const aborted = !finished;
      const status = aborted ? 499 : res.statusCode;
      const { operationName, operationRan } = store;
      requestContext.run(store, () =>
        logger.info(
          { method, path: pathOf(req.url), status, durationMs, operationName, ...(aborted ? { aborted } : {}) },
          'request',
        ),
      );
      metrics.observeRequest({
        method,
        route: store.route ?? 'unmatched',
        status,
        operation: operationName,
        operationRan,
        tenant: store.tenant,
        durationMs,
      });
    };
    res.once('finish', () => {
      finished = !res.destroyed;
      end();
    });
    res.once('close', end);

    requestContext.run(store, () => listener(req, res));
  };
}
