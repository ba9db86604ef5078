import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { requestContext } from '../../platform/request-context.ts';
import { tenantKey } from '../../platform/tenancy.ts';
import type { GraphQLContext, ServerContext } from '../context.ts';
import { EVERYTHING, type ResponseCache } from './cache.ts';
import { cacheSessionOf, etagMatches, etagOf, responseCacheKey } from './key.ts';
import type { Entry } from './store.ts';

/** One request's part in the cache: its key, and itself as the leader of its flight. */
interface Miss {
  key: string;
}

/** A hit as Yoga serialises it (it calls a result's own `stringify`): the stored body, not another walk. */
export const storedAnswer = ({ json, headers }: Entry): ExecutionResult =>
  ({ stringify: () => json, extensions: { http: { headers } } }) as unknown as ExecutionResult;

/** The body Yoga sends for `result`: `extensions.http` becomes headers, an empty `extensions` goes. */
function bodyOf(result: ExecutionResult): string {
  const { extensions, ...rest } = result;
  const { http: _http, ...others } = (extensions ?? {}) as Record<string, unknown>;
  return JSON.stringify(Object.keys(others).length ? { ...rest, extensions: others } : rest);
}

/** What the cache keeps of an answer computed for this request (its body as sent, and what it read). */
export function entryOf(json: string, owner: string): Entry {
  const request = requestContext.getStore();
  return {
    json,
    headers: { ETag: etagOf(json), 'Last-Modified': new Date().toUTCString() },
    bytes: Buffer.byteLength(json),
    operationName: request?.operationName,
    tags: [tenantKey(EVERYTHING), ...(request?.readFrom ?? [])],
    owner,
  };
}

/**
 * The shared response cache as one Envelop plugin, last in the list. Requests reach Yoga authenticated;
 * the key holds the caller's scopes, so an answer is served only to a request identical to one that
 * passed every check and ran, by a caller allowed exactly what its first caller was. Hits are served
 * from the params, before parsing. Only queries whose every field the SDL marks @sharedCache, answered
 * without errors, are kept. Mutations are never kept; each answers once this instance has applied the
 * change notifications it caused, so a writer reads its own write.
 */
export function useResponseCache(
  cache: ResponseCache,
  shareable: (document: DocumentNode, text?: string) => boolean,
): Plugin<GraphQLContext, ServerContext> {
  const misses = new WeakMap<Request, Miss>();
  const serve = (entry: Entry | undefined, setResult: (result: ExecutionResult) => void) => {
    if (entry) setResult(storedAnswer(entry));
  };
  return {
    onParams({ params, request, context, setResult }) {
      if (!cache.available) return undefined;
      const key = responseCacheKey(
        cacheSessionOf(context.session.scopes),
        params.operationName,
        params.query ?? '',
        params.variables,
      );
      const stored = cache.lookup(key);
      if (stored) return serve(stored, setResult);
      const miss: Miss = { key };
      misses.set(request, miss);
      const waiting = cache.join(key, miss, requestContext.getStore()?.controller?.signal);
      if (!waiting) return cache.missed(key);
      return waiting.then((entry) => (entry ? serve(entry, setResult) : cache.missed(key)));
    },
    onExecute({ args }) {
      const miss = misses.get(args.contextValue.request);
      if (!miss) return undefined;
      if (isMutation(args.document, args.operationName)) {
        // The write's own notifications drop what it changed, here as on every instance; the answer
        // waits for them, so the writer's next read is fresh.
        return { onExecuteDone: () => cache.catchUp() };
      }
      cache.executing(miss.key, miss);
      const text = (args.contextValue as { params?: { query?: unknown } }).params?.query;
      if (!shareable(args.document, typeof text === 'string' ? text : undefined)) return undefined;
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result) || result.errors?.length) return;
          const entry = entryOf(bodyOf(result), args.contextValue.session.tokenId);
          const extensions = (result.extensions ??= {}) as { http?: { headers?: Record<string, string> } };
          extensions.http = { ...extensions.http, headers: { ...extensions.http?.headers, ...entry.headers } };
          // Yoga sends the body stored, not a second serialisation of the same result.
          (result as { stringify?: () => string }).stringify = () => entry.json;
          cache.offer(miss.key, miss, entry);
        },
      };
    },
    onResponse({ request, response, setResponse, fetchAPI }) {
      const miss = misses.get(request);
      if (miss) cache.land(miss.key, miss);
      // A 304 depends on the answer's bytes alone, stored or just computed: were it given only for a
      // stored answer, it would tell a caller what someone else had asked.
      const etag = response.headers.get('etag');
      if (response.status === 200 && etag && etagMatches(request.headers.get('if-none-match'), etag)) {
        const headers = new fetchAPI.Headers({ ETag: etag });
        const lastModified = response.headers.get('last-modified');
        if (lastModified) headers.set('Last-Modified', lastModified);
        setResponse(new fetchAPI.Response(null, { status: 304, headers }));
      }
    },
  };
}

function isMutation(document: DocumentNode, operationName: string | null | undefined): boolean {
  return getOperationAST(document, operationName)?.operation === OperationTypeNode.MUTATION;
}
