import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { Counter, type Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { Logger } from '../platform/logger.ts';
import { allowReplicaReads } from '../platform/replicas.ts';
import { requestContext } from '../platform/request-context.ts';
import type { Session } from '../platform/session.ts';
import { compileDocument, scopesAllow, variablesPass, type CompiledDocument } from './compiled/document.ts';
import { idRequestOf, type IdRequest } from './compiled/request.ts';
import { sendData, sendErrors } from './compiled/send.ts';
import { shorten } from './errors.ts';
import type { AnswerMediaTypes } from './media-types.ts';
import { createDocumentCache } from './parse-caches.ts';
import { withDeadline } from './plugins/use-execution-deadline.ts';
import type { FindTrustedDocument } from './plugins/use-trusted-documents.ts';
import {
  cacheSessionOf,
  createShareability,
  entryOf,
  responseCacheKey,
  sendStoredAnswer,
  type ResponseCache,
} from './response-cache/index.ts';

// A trusted document's query, run without Yoga: the document was registered ahead of time, so it is parsed,
// validated against every limit, compiled (graphql-jit) and its scope requirements listed once per process.
// What stays per request is what depends on the request: the caller's scopes, the variables (coercion,
// text inputs, cost), the response cache, the deadline. Anything this path does not answer exactly as Yoga
// would (an unknown id, a refusal, a mutation, federation fields, an unlearnt Accept) goes to Yoga, which
// answers it as before; the endpoint's authentication, fair share and in-flight limits ran already.

interface Deps {
  config: Pick<Config, 'graphql'>;
  logger: Logger;
  schema: GraphQLSchema;
  contextParts: readonly (() => object)[];
  find: FindTrustedDocument;
  mediaTypes: AnswerMediaTypes;
  cache?: ResponseCache | undefined;
  readReplicas?: boolean;
  registry: Registry;
}

/** One request on this path: what it runs, for whom, and where its answer goes. */
interface Run {
  compiled: CompiledDocument;
  text: string;
  request: IdRequest;
  session: Session;
  ip: string;
  mediaType: string;
  req: IncomingMessage;
  res: ServerResponse;
}

export function createCompiledPath(deps: Deps) {
  const { config, schema, find, mediaTypes } = deps;
  // How much of the trusted-document traffic this path answers; the rest (and every full document) is Yoga's.
  const answered = new Counter({
    name: 'graphql_compiled_answers_total',
    help: 'GraphQL requests naming a trusted document answered without Yoga (compiled path), stored answers included.',
    registers: [deps.registry],
  });
  const shareable = createShareability(schema);
  const compiledByText = createDocumentCache<CompiledDocument | false>();
  const compiledFor = (text: string) => {
    let compiled = compiledByText.get(text);
    if (compiled === undefined)
      compiledByText.set(text, (compiled = compileDocument(schema, config.graphql, text, shareable)));
    return compiled;
  };
  const execute = createExecution(deps);

  return {
    /** Whether this request may be answered here: its body is then read. */
    mayAnswer: (req: IncomingMessage) => mediaTypes.forJsonPost(req) !== undefined,

    /** Answers a request naming a trusted document, or returns false having sent nothing (Yoga answers it). */
    async answer(session: Session, ip: string, body: Buffer, req: IncomingMessage, res: ServerResponse) {
      const mediaType = mediaTypes.forJsonPost(req);
      const request = mediaType && idRequestOf(body);
      if (!request) return false;
      const found = find(request.hash);
      const text = found instanceof Promise ? await found : found;
      // Unknown: Yoga refuses it as it does any unknown id.
      if (text === undefined) return false;
      const compiled = compiledFor(text);
      if (!compiled) return false;
      if (request.operationName !== undefined && request.operationName !== compiled.name) return false;
      if (!scopesAllow(compiled, session) || !variablesPass(schema, config.graphql, compiled, request.variables))
        return false;
      answered.inc();
      const store = requestContext.getStore();
      const name = request.operationName || compiled.name;
      if (store) {
        store.operationName = name ? shorten(name) : null;
        store.operationRan = true;
      }
      await execute({ compiled, text, request, session, ip, mediaType, req, res });
      return true;
    },
  };
}

/** The cache's part (a hit, or waiting for an identical request's answer), then the execution and the answer. */
function createExecution(deps: Deps) {
  const { config, logger, contextParts, cache, readReplicas } = deps;
  return async (run: Run): Promise<void> => {
    const { compiled, request, session, mediaType, req, res } = run;
    const flight = {};
    let key: string | undefined;
    if (cache?.available) {
      key = responseCacheKey(cacheSessionOf(session.scopes), request.operationName, run.text, request.variables);
      let stored = cache.lookup(key);
      if (!stored) {
        stored = await cache.join(key, flight, requestContext.getStore()?.controller?.signal);
        if (!stored) cache.missed(key);
      }
      if (stored) return sendStoredAnswer(stored, mediaType, req, res);
      cache.executing(key, flight);
    }
    try {
      if (readReplicas) allowReplicaReads();
      const context = Object.assign({ session, ip: run.ip }, ...contextParts.map((part) => part()));
      const result = (await withDeadline(
        () => compiled.query.query(undefined, context, request.variables ?? {}),
        config.graphql.executionTimeoutMs,
        logger,
      )) as ExecutionResult;
      if (result.errors?.length) return await sendErrors(result, compiled.source, mediaType, res, logger);
      const json = JSON.stringify(result);
      let validators: Record<string, string> | undefined;
      if (key !== undefined && compiled.shareable) {
        const entry = entryOf(json, session.tokenId);
        cache!.offer(key, flight, entry);
        validators = entry.headers;
      }
      sendData(json, mediaType, validators, req, res);
    } finally {
      if (key !== undefined) cache!.land(key, flight);
    }
  };
}

export type CompiledPath = ReturnType<typeof createCompiledPath>;
