import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { Config } from '../../config.ts';
import type { Session } from '../../platform/session.ts';
import type { GraphQLContext } from '../context.ts';
import { graphQLError } from '../errors.ts';
import { createGatewayCheck, GATEWAY_SECRET_HEADER } from '../federation.ts';

/** The document store the plugin asks, by hash, in the request's tenant (src/modules/documents). */
export type FindTrustedDocument = (hash: string) => string | undefined | Promise<string | undefined>;

/** The ability that lets a token send full documents under `require` (declared by the documents module). */
const ANY_DOCUMENT = 'graphql:any';

/** Whether a caller may send a full document (its session, and the gateway secret header it sent). */
export type FullDocumentPolicy = (session: Session | undefined, gatewaySecret: string | null) => boolean;

/**
 * Always, but under `require` only administrators, `graphql:any` and the federation gateway (which plans
 * its own documents from what its clients sent: trusted documents are then the gateway's to enforce).
 */
export function createFullDocumentPolicy(config: Pick<Config, 'graphql' | 'federation'>): FullDocumentPolicy {
  if (config.graphql.trustedDocuments !== 'require') return () => true;
  const isGateway = createGatewayCheck(config.federation.secret);
  return (session, gatewaySecret) =>
    isGateway(gatewaySecret) ||
    (session !== undefined && (session.user.isAdmin || session.scopes.includes(ANY_DOCUMENT)));
}

// Apollo Client's persisted-queries link recognises the code; its message is Apollo Server's.
const notFound = () => graphQLError('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND', { status: 400 });
const documentsOnly = () =>
  graphQLError(
    'Only trusted documents are accepted here: send a documentId (GRAPHQL_TRUSTED_DOCUMENTS=require).',
    'PERSISTED_QUERY_ONLY',
    { status: 400 },
  );
const notSupported = () =>
  graphQLError(
    'Trusted documents are turned off here (GRAPHQL_TRUSTED_DOCUMENTS=off): send the document.',
    'PERSISTED_QUERY_NOT_SUPPORTED',
    { status: 400 },
  );
// What Yoga answers a request with no document at all, as before trusted documents.
const noDocument = () =>
  graphQLError('Must provide query string.', 'BAD_REQUEST', { status: 400, headers: { Allow: 'GET, POST' } });

const DOCUMENT_ID = /^sha256:([0-9a-fA-F]{64})$/;

/**
 * The hash a request's `documentId: "sha256:<hex>"` (GraphQL over HTTP) or else Apollo's
 * `extensions.persistedQuery` names. A documentId of another form names no document anyone can have
 * registered: it is looked up as is, and is unknown.
 */
export function documentHash(documentId: unknown, extensions: unknown): string | null {
  if (typeof documentId === 'string' && documentId !== '') {
    return DOCUMENT_ID.exec(documentId)?.[1]?.toLowerCase() ?? documentId;
  }
  const persisted = (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)
    ?.persistedQuery;
  if (persisted && persisted.version === 1 && typeof persisted.sha256Hash === 'string') {
    return persisted.sha256Hash.toLowerCase();
  }
  return null;
}

/** The hash a request names: in a POST body's fields, or a GET's query parameter (which Yoga's GET parser drops). */
function requestedHash(params: GraphQLParams & { documentId?: unknown }, request: Request): string | null {
  const documentId =
    params.documentId ?? (request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : null);
  return documentHash(documentId, params.extensions);
}

/**
 * Trusted documents: a request names a registered document by hash, and runs its text from here on as if
 * it had sent it, so every later plugin (limits, scopes, cost, deadline, the response cache keyed on the
 * text) treats it as the same full document; the parse and validation caches and the compiled execution,
 * keyed by that text, make its parse, validation and compilation happen once per process.
 * Before the limits in the plugin list: they read the text this sets.
 */
export function useTrustedDocuments(
  config: Pick<Config, 'graphql' | 'federation'>,
  find: FindTrustedDocument | undefined,
): Plugin[] {
  if (config.graphql.trustedDocuments === 'off' || !find) {
    return [
      {
        onParams({ params, request }) {
          if (params.query == null && requestedHash(params, request) !== null) throw notSupported();
        },
      },
    ];
  }
  const mayRunAnyDocument = createFullDocumentPolicy(config);
  return [
    {
      // Before the plugin below replaces an id by its text: here a query is one the client sent.
      onParams({ params, request, context }) {
        if (params.query == null) return;
        const session = (context as Partial<GraphQLContext>).session;
        if (!mayRunAnyDocument(session, request.headers.get(GATEWAY_SECRET_HEADER))) throw documentsOnly();
      },
    },
    usePersistedOperations<GraphQLContext>({
      allowArbitraryOperations: true,
      extractPersistedOperationId: (params, request) => requestedHash(params, request),
      // Synchronous once the tenant's documents are in memory: no promise per request.
      getPersistedOperation: (hash) => {
        const found = find(hash);
        return found instanceof Promise ? found.then((text) => text ?? null) : (found ?? null);
      },
      customErrors: { notFound, keyNotFound: noDocument, persistedQueryOnly: documentsOnly },
    }) as Plugin,
  ];
}
