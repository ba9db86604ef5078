import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { useDepthLimit } from '@envelop/depth-limit';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  KnownFragmentNamesRule,
  Lexer,
  NoFragmentCyclesRule,
  Source,
  TokenKind,
  validate,
  type ASTVisitor,
  type DocumentNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.ts';

/**
 * The abuse limits of /graphql. Every refusal is the same kind of error: code
 * GRAPHQL_VALIDATION_FAILED and HTTP 400 whatever the Accept header says (a
 * policy refusal, like 413, that proxies and dashboards should see as a 4xx),
 * raised before execution so that no resolver, and no SQL, runs.
 */

export type LimitsConfig = Pick<Config, 'graphqlMaxDepth' | 'graphqlMaxTokens' | 'graphqlMaxAliases' | 'graphqlMaxDirectives'>;

export function limitError(message: string, located?: GraphQLError): GraphQLError {
  return createGraphQLError(message, {
    ...(located ? { nodes: located.nodes, source: located.source, positions: located.positions } : {}),
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400, spec: false } },
  });
}

/** Operation types the schema has no root for (graphql 17's KnownOperationTypesRule). */
const knownOperationTypesRule: ValidationRule = (context): ASTVisitor => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(new GraphQLError(`This service does not support ${node.operation} operations.`, { nodes: node }));
    }
  },
});

/**
 * Names beginning with "__" are reserved for introspection; as operation or
 * fragment names they also reach walkers that keep names as plain object keys,
 * where "__proto__" is no key at all.
 */
const reservedNamesRule: ValidationRule = (context): ASTVisitor => {
  const check = (node: { name?: { value: string } | undefined }) => {
    const name = node.name?.value;
    if (name?.startsWith('__')) {
      context.reportError(new GraphQLError(`Names beginning with "__" are reserved for introspection: "${name}".`, { nodes: node as never }));
    }
  };
  return { OperationDefinition: check, FragmentDefinition: check };
};

const SOUNDNESS_RULES = [knownOperationTypesRule, reservedNamesRule, KnownFragmentNamesRule, NoFragmentCyclesRule];

/**
 * graphql-armor reports a rejection by throwing a bare GraphQLError (HTTP 200,
 * no code, message prefixed "Syntax Error: "); its onReject hook runs first, so
 * throwing ours there replaces it.
 */
const rejectWithLimitError = [
  (_ctx: ValidationContext | null, error: GraphQLError) => {
    throw limitError(error.message.replace(/^Syntax Error: /, ''));
  },
];

/**
 * Counts tokens with graphql-js's own lexer before Yoga parses (or caches) the
 * document. graphql's parser can stop at maxTokens too, but Yoga marks every
 * parse error as spec-governed (HTTP 200 for Accept: application/json); a
 * policy refusal is a 400 for every client. A lexer pass does not recurse, so a
 * 100,000-level document is refused after the first maxTokens tokens.
 */
function assertTokenLimit(query: string, maxTokens: number): void {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) {
      if (++count > maxTokens) throw limitError(`Token limit of ${maxTokens} exceeded.`);
    }
  } catch (err) {
    if (err instanceof GraphQLError && err.extensions['code'] === 'GRAPHQL_VALIDATION_FAILED') throw err;
    // A lexical error: left to the parser, which reports it in the usual way.
  }
}

// graphql-depth-limit's wording: "'<operation>' exceeds maximum operation depth of <n>".
const DEPTH_LIMIT_MESSAGE = /exceeds maximum operation depth of (\d+)$/;

/**
 * Yoga plugins enforcing tokens, depth, aliases and directives (the cost depends
 * on variable values: execution-limits.ts). Depth is
 * @envelop/depth-limit (graphql-depth-limit), which skips introspection fields:
 * introspection resolves in memory, and its nesting is bounded by the token limit.
 */
export function useGraphQLLimits(
  config: LimitsConfig,
  /** Whether Yoga's parse cache holds this text: it was counted when first parsed. */
  isParsedAlready: (query: string) => boolean = () => false,
): Plugin {
  const rules: ValidationRule[] = [
    // graphql-armor lets aliases of __typename through by default: they are aliases too.
    maxAliasesRule({ n: config.graphqlMaxAliases, allowList: [], onReject: rejectWithLimitError }),
    maxDirectivesRule({ n: config.graphqlMaxDirectives, onReject: rejectWithLimitError }),
  ];
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(useDepthLimit({ maxDepth: config.graphqlMaxDepth }) as Plugin);
    },
    onParams({ params }) {
      // A cached document passed this count before it was parsed; lexing it again
      // on every request would only repeat the answer.
      if (typeof params.query === 'string' && !isParsedAlready(params.query)) {
        assertTokenLimit(params.query, config.graphqlMaxTokens);
      }
    },
    onValidate({ addValidationRule, params, setResult }) {
      // Documents the depth and alias walkers cannot take (they recurse through
      // fragments by name) are refused before those rules run.
      const unsound = validate(params.schema, params.documentAST, SOUNDNESS_RULES);
      if (unsound.length > 0) {
        setResult(unsound.map((e) => limitError(e.message, e)));
        return;
      }
      for (const rule of rules) addValidationRule(rule);
      // The depth rule reports a bare validation error; give it the same code and
      // 400 as every other limit.
      return ({ result, setResult }) => {
        if (!result.some((e) => DEPTH_LIMIT_MESSAGE.test(e.message))) return;
        setResult(
          result.map((e) => {
            const depth = DEPTH_LIMIT_MESSAGE.exec(e.message);
            return depth ? limitError(`Query depth limit of ${depth[1]} exceeded.`) : e;
          }),
        );
      };
    },
  };
}

function bodyTooLargeError(): GraphQLError {
  return createGraphQLError('Request body too large.', {
    extensions: { code: 'REQUEST_ENTITY_TOO_LARGE', http: { status: 413 } },
  });
}

/**
 * Yoga's maxRequestBodySize, for bodies of undeclared length only (chunked).
 * Yoga's own check pipes every body through a TransformStream, a stream
 * pipeline and an AbortSignal: about 4% of the service's CPU on a nested
 * product query. A declared Content-Length needs none of that: the dispatcher
 * refuses one over the limit unread, and Node's parser never hands over more
 * bytes than were declared.
 */
export function useUndeclaredBodyLimit(limit: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      if (!requestParser || request.method === 'GET' || request.method === 'HEAD') return;
      if (request.headers.has('content-length') || !request.body) return;
      let bytesRead = 0;
      const limited = request.body.pipeThrough(
        new fetchAPI.TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            bytesRead += chunk.byteLength;
            if (bytesRead > limit) controller.error(bodyTooLargeError());
            else controller.enqueue(chunk);
          },
        }),
      );
      setRequestParser(() =>
        requestParser(
          new fetchAPI.Request(request.url, {
            method: request.method,
            headers: request.headers,
            signal: request.signal,
            body: limited,
            duplex: 'half',
          } as RequestInit),
        ),
      );
    },
  };
}

/** Total document text Yoga's parse caches may hold (JS strings: two bytes a character). */
const CACHED_DOCUMENT_CHARS = 4 * 1024 * 1024;

/**
 * Yoga's parse caches, bounded by the size of what they hold. Its default keeps
 * 1024 documents of any size, keyed by their text: with bodies up to 1 MB that
 * is a gigabyte an authenticated client could pin with 1024 distinct padded
 * documents. Here the cached document texts total at most 4 Mi characters (a
 * document bigger than that is simply not cached).
 */
export function createParseCaches() {
  const bounded = <T extends {}>() =>
    new LRUCache<string, T>({
      max: 1024,
      ttl: 3_600_000,
      maxSize: CACHED_DOCUMENT_CHARS,
      sizeCalculation: (_value, key) => Math.max(1, key.length),
    });
  return { documentCache: bounded<DocumentNode>(), errorCache: bounded<object>() };
}
