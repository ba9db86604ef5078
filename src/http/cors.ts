import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for /graphql and /api/v1/*: only origins listed in CORS_ORIGINS get an
 * Access-Control-Allow-Origin, and it is always their own origin, never `*` and
 * never an echo of an unlisted one. No credentials: clients send a bearer token,
 * not cookies. Vary: Origin on every answer so a shared cache never serves one
 * origin's CORS headers to another.
 */

const ALLOWED_METHODS = 'GET, POST, DELETE';
const MAX_AGE_SECONDS = '600';

export function isCorsPath(pathname: string): boolean {
  return pathname === '/graphql' || pathname.startsWith('/api/v1/');
}

export function createCors(options: { origins: readonly string[]; allowedHeaders: readonly string[] }) {
  const origins = new Set(options.origins.map((o) => o.toLowerCase()));
  const allowHeaders = ['Authorization', 'Content-Type', ...options.allowedHeaders].join(', ');

  function allowedOrigin(req: IncomingMessage): string | undefined {
    const values = req.headersDistinct.origin;
    if (!values || values.length !== 1) return undefined;
    const origin = values[0]!;
    return origins.has(origin.toLowerCase()) ? origin : undefined;
  }

  return {
    /** Sets the CORS headers of an actual (non-preflight) response. */
    decorate(req: IncomingMessage, res: ServerResponse): void {
      res.setHeader('Vary', 'Origin');
      const origin = allowedOrigin(req);
      if (!origin) return;
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate, Retry-After');
    },

    /**
     * Answers an OPTIONS request (a preflight carries no token, so this runs
     * before authentication): 204, with the CORS grant only for a listed origin.
     */
    preflight(req: IncomingMessage, res: ServerResponse): void {
      const headers: Record<string, string> = { Vary: 'Origin', Allow: `${ALLOWED_METHODS}, OPTIONS` };
      const origin = allowedOrigin(req);
      if (origin) {
        Object.assign(headers, {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': ALLOWED_METHODS,
          'Access-Control-Allow-Headers': allowHeaders,
          'Access-Control-Max-Age': MAX_AGE_SECONDS,
        });
      }
      res.writeHead(204, headers);
      res.end();
    },
  };
}

export type Cors = ReturnType<typeof createCors>;
