import type { IncomingMessage, ServerResponse } from 'node:http';

// Only listed origins are granted, always as their own origin, never `*`; no credentials (bearer tokens, not cookies).
// Vary: Origin on every answer, so a shared cache never serves one origin's grant to another.

const ALLOWED_METHODS = 'GET, POST, DELETE';
const MAX_AGE_SECONDS = '600';

export function createCors(options: {
  origins: readonly string[];
  allowedHeaders: readonly string[];
  /** The paths CORS answers for: exact paths, and prefixes ending in '/'. */
  paths: readonly string[];
}) {
  const origins = new Set(options.origins.map((o) => o.toLowerCase()));
  const allowHeaders = ['Authorization', 'Content-Type', ...options.allowedHeaders].join(', ');

  function allowedOrigin(req: IncomingMessage): string | undefined {
    const values = req.headersDistinct.origin;
    if (!values || values.length !== 1) return undefined;
    const origin = values[0]!;
    return origins.has(origin.toLowerCase()) ? origin : undefined;
  }

  return {
    applies(pathname: string): boolean {
      return options.paths.some((p) => (p.endsWith('/') ? pathname.startsWith(p) : pathname === p));
    },
    decorate(req: IncomingMessage, res: ServerResponse): void {
      res.setHeader('Vary', 'Origin');
      const origin = allowedOrigin(req);
      if (!origin) return;
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate, Retry-After');
    },

    /** A preflight carries no token, so this runs before authentication. */
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
