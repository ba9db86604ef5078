import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../platform/errors.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { Route } from './router.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics, for Prometheus. Served only when METRICS_TOKEN is set and only to
 * `Authorization: Bearer <METRICS_TOKEN>`: the numbers describe traffic and users,
 * and the service may face the internet. Digests make the compare constant-time
 * whatever the length of the guess.
 */
export function createMetricsRoute(
  metrics: Metrics,
  token: string | undefined,
  /** The exposition to serve; by default this app's registry (a cluster worker serves the whole instance's). */
  exposition: () => Promise<string> = () => metrics.registry.metrics(),
): Route {
  const expected = token ? digest(`Bearer ${token}`) : undefined;
  return {
    method: 'GET',
    path: '/metrics',
    auth: false,
    async handle({ req, res }) {
      if (!expected) throw new HttpError(404, 'Not found.');
      const given = req.headersDistinct.authorization;
      if (!given || given.length !== 1 || !timingSafeEqual(digest(given[0]!), expected)) {
        throw new HttpError(401, 'Unauthenticated.', { headers: { 'WWW-Authenticate': 'Bearer' } });
      }
      const body = await exposition();
      res.writeHead(200, {
        'Content-Type': metrics.registry.contentType,
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': 'no-store',
      });
      res.end(body);
    },
  };
}
