import { BEARER_CHALLENGE, HttpError, NO_STORE, UNAUTHENTICATED_MESSAGE } from '../platform/errors.ts';
import type { Metrics } from '../platform/metrics.ts';
import { safeEqual } from '../platform/secrets.ts';
import type { Route } from './router.ts';

/** Only for `Bearer <METRICS_TOKEN>`, compared in constant time: the numbers describe traffic and users. */
export function createMetricsRoute(
  metrics: Metrics,
  token: string | undefined,
  /** The exposition to serve; by default this app's registry (a cluster worker serves the whole instance's). */
  exposition: () => Promise<string> = () => metrics.registry.metrics(),
): Route {
  const expected = token ? `Bearer ${token}` : undefined;
  return {
    method: 'GET',
    path: '/metrics',
    auth: false,
    whileStarting: true,
    anyHost: true,
    async handle({ req, res }) {
      if (!expected) throw new HttpError(404, 'Not found.');
      const given = req.headersDistinct.authorization;
      if (!given || given.length !== 1 || !safeEqual(given[0]!, expected)) {
        throw new HttpError(401, UNAUTHENTICATED_MESSAGE, { headers: { ...BEARER_CHALLENGE } });
      }
      const body = await exposition();
      res.writeHead(200, {
        'Content-Type': metrics.registry.contentType,
        'Content-Length': Buffer.byteLength(body),
        ...NO_STORE,
      });
      res.end(body);
    },
  };
}
