import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpError } from '../platform/errors.ts';
import type { Session } from '../platform/session.ts';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  ip: string;
  /** Set for routes with `auth: true`; such a route never runs without one. */
  session: Session | null;
  params: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** A path; a segment `:name` matches one segment and is passed as params.name. */
  path: string;
  auth: boolean;
  /** Served while the service is still starting (probes, metrics); the rest are 503 until then. */
  whileStarting?: boolean;
  /** Answers for the process on every host, known or not (probes, metrics); no tenant. */
  anyHost?: boolean;
  handle(ctx: RouteContext): Promise<void> | void;
}

/** A path tree answering in its own format (GraphQL): the dispatcher authenticates and hands it its refusals to word. */
export interface Endpoint {
  path: string;
  /** Requests it serves without a session (GraphiQL's page and assets). */
  isPublic(req: IncomingMessage, url: URL): boolean;
  /** A declared Content-Length above this is refused unread with 413. */
  maxBodyBytes: number;
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: { session: Session | null; ip: string; url: URL },
  ): Promise<void>;
  sendError(res: ServerResponse, error: HttpError): void;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

function compile(path: string): RegExp {
  const pattern = path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? `(?<${segment.slice(1)}>[^/]+)` : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${pattern}$`);
}

/** A tiny router: a handful of fixed REST paths does not need a framework. */
export function createRouter(routes: readonly Route[]) {
  const compiled = routes.map((route) => ({ route, pattern: compile(route.path) }));
  return {
    match(method: string, pathname: string): RouteMatch {
      const allow: string[] = [];
      for (const { route, pattern } of compiled) {
        const m = pattern.exec(pathname);
        if (!m) continue;
        if (route.method === method) return { kind: 'found', route, params: { ...m.groups } };
        allow.push(route.method);
      }
      return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
    },
  };
}
