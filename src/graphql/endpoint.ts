import type { IncomingMessage, ServerResponse } from 'node:http';
import Negotiator from 'negotiator';
import type { Endpoint } from '../http/router.ts';
import { readBody } from '../http/body.ts';
import { HttpError } from '../platform/errors.ts';
import { requestContext } from '../platform/request-context.ts';
import { fromHttpError, sendGraphQLError, tooManyInFlightError } from './errors.ts';
import { GRAPHIQL_ASSETS_PATH, type GraphiQL } from './graphiql.ts';
import type { CompiledPath } from './compiled-path.ts';
import type { StoredAnswers } from './response-cache/index.ts';
import { GRAPHQL_PATH, type GraphQLHandler } from './yoga.ts';

const PAGE_OR_API = ['text/html', 'application/graphql-response+json', 'application/json'];

/**
 * A browser navigating to /graphql, with or without `?query=` (the page reads it, so reload, bookmark
 * and share work): it prefers HTML to JSON. API clients sending GET ask for JSON, or for anything.
 */
function wantsGraphiQL(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const accept = req.headers.accept;
  return (
    accept !== undefined &&
    accept.includes('text/html') &&
    new Negotiator({ headers: { accept } }).mediaType(PAGE_OR_API) === 'text/html'
  );
}

/**
 * A response counts until its body has left Node, so one token holds neither every pooled connection nor
 * unbounded response buffers. Swept at the limit: 'finish' can follow a keep-alive client's next request.
 */
function createInFlightCounter(limit: number) {
  const responses = new Map<string, Set<ServerResponse>>();
  const done = (res: ServerResponse) =>
    res.destroyed || res.writableFinished || (res.writableEnded && res.writableLength === 0);
  return {
    full(key: string): boolean {
      const open = responses.get(key);
      if (open && open.size >= limit) for (const r of open) if (done(r)) open.delete(r);
      return open !== undefined && open.size >= limit;
    },
    add(key: string, res: ServerResponse): void {
      let open = responses.get(key);
      if (!open) responses.set(key, (open = new Set()));
      open.add(res);
      res.once('close', () => {
        open.delete(res);
        if (open.size === 0 && responses.get(key) === open) responses.delete(key);
      });
    },
  };
}

export function createGraphQLEndpoint(deps: {
  yoga: GraphQLHandler;
  /** The response cache, whose stored answers are sent without entering Yoga (response-cache/serve.ts). */
  storedAnswers?: StoredAnswers | undefined;
  /** Trusted documents' queries, run without Yoga (compiled-path.ts). */
  compiledPath?: CompiledPath | undefined;
  graphiql: GraphiQL;
  maxBodyBytes: number;
  maxInFlightPerToken: number;
  /** Over all of a user's tokens: minting more tokens buys no bigger share than this. */
  maxInFlightPerUser: number;
}): Endpoint {
  const { yoga, graphiql } = deps;
  const perToken = createInFlightCounter(deps.maxInFlightPerToken);
  const perUser = createInFlightCounter(deps.maxInFlightPerUser);
  const stored = deps.storedAnswers;
  const compiled = deps.compiledPath;
  return {
    path: GRAPHQL_PATH,
    maxBodyBytes: deps.maxBodyBytes,
    isPublic: (req, url) =>
      url.pathname.startsWith(GRAPHIQL_ASSETS_PATH) || (url.pathname === GRAPHQL_PATH && wantsGraphiQL(req)),
    async handle(req, res, { session, ip, url }) {
      if (!session) return graphiql.serve(req, res, url.pathname);
      if (url.pathname !== GRAPHQL_PATH) throw new HttpError(404, 'Not found.');
      // Closed while authentication ran: its 'close' has been and gone, so it is not tracked.
      if (!res.destroyed) {
        if (perToken.full(session.tokenId)) return sendGraphQLError(res, tooManyInFlightError('token'));
        if (perUser.full(session.user.id)) return sendGraphQLError(res, tooManyInFlightError('user'));
        perToken.add(session.tokenId, res);
        perUser.add(session.user.id, res);
      }
      // Aborted by the deadline or a vanished client; platform/abort.ts then stops the request's statements.
      const controller = new AbortController();
      const store = requestContext.getStore();
      if (store) store.controller = controller;
      res.once('close', () => {
        if (!res.writableFinished) controller.abort();
      });
      if (stored?.mayAnswer(req) || compiled?.mayAnswer(req)) {
        // Read here, and handed to Yoga as the request's body otherwise (@whatwg-node/server takes `req.body`).
        const body = await readBody(req, deps.maxBodyBytes);
        (req as IncomingMessage & { body?: Buffer }).body = body;
        if (stored?.answer(session, body, req, res)) return;
        if (await compiled?.answer(session, ip, body, req, res)) return;
      }
      await yoga(req, res, { session, ip });
    },
    sendError: (res, error) => sendGraphQLError(res, fromHttpError(error)),
  };
}
