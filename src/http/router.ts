import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Session } from '../modules/auth/service.ts';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The client's address as this process sees it. */
  ip: string;
  /** Set for routes with `auth: true`; such a route never runs without one. */
  session: Session | null;
  params: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** An exact path, or a pattern with named groups for params. */
  path: string | RegExp;
  /** True: the dispatcher authenticates first and answers 401 without a valid token. */
  auth: boolean;
  handle(ctx: RouteContext): Promise<void> | void;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** A tiny router: a handful of fixed REST paths does not need a framework. */
export function createRouter(routes: readonly Route[]) {
  return {
    match(method: string, pathname: string): RouteMatch {
      const allow: string[] = [];
      for (const route of routes) {
        let params: Record<string, string> | undefined;
        if (typeof route.path === 'string') {
          if (route.path === pathname) params = {};
        } else {
          const m = route.path.exec(pathname);
          if (m) params = { ...m.groups };
        }
        if (!params) continue;
        if (route.method === method) return { kind: 'found', route, params };
        allow.push(route.method);
      }
      return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
    },
  };
}
