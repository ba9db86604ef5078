import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { useDepthLimit } from '@envelop/depth-limit';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  getNamedType,
  isInterfaceType,
  isObjectType,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
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

export type LimitsConfig = Pick<
  Config,
  'graphqlMaxDepth' | 'graphqlMaxTokens' | 'graphqlMaxAliases' | 'graphqlMaxDirectives' | 'graphqlMaxCost' | 'maxPageSize'
>;

export function limitError(message: string): GraphQLError {
  return createGraphQLError(message, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400, spec: false } },
  });
}

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

/** The page size a `first` argument asks for, taken statically from the document. */
function requestedPageSize(
  field: GraphQLField<unknown, unknown>,
  value: ValueNode | undefined,
  operation: OperationDefinitionNode,
  maxPageSize: number,
): number {
  const argument = field.args.find((a) => a.name === 'first');
  if (!argument) return 1;
  let size: unknown = argument.defaultValue;
  if (value?.kind === Kind.INT) size = Number(value.value);
  else if (value?.kind === Kind.VARIABLE) {
    // Validation results are cached per document, not per variables: assume the
    // variable's default when it has one, else the largest page a request can get.
    const name = value.name.value;
    const definition = operation.variableDefinitions?.find((v) => v.variable.name.value === name);
    size = definition?.defaultValue?.kind === Kind.INT ? Number(definition.defaultValue.value) : maxPageSize;
  }
  if (typeof size !== 'number' || !Number.isFinite(size)) return maxPageSize;
  // Sizes outside 1..maxPageSize are refused by the resolver before any SQL, with
  // SPEC's own message; counting them at the ceiling keeps that message reachable.
  return Math.min(Math.max(size, 1), maxPageSize);
}

/**
 * Cost = every selected field counts 1, and a field with a `first` argument
 * multiplies what it selects by the page size it asks for. Lists without `first`
 * (a product's steps, …) count once: their length is the catalogue's, not the
 * client's to choose, and aliasing them is counted field by field.
 * products(first: 100) selecting 26 fields per product costs 1 + 100 × 26 = 2601.
 * Fragment costs are memoised, so a document of nested fragment spreads is
 * costed in linear time.
 */
export function costLimitRule(options: { maxCost: number; maxPageSize: number }): ValidationRule {
  return (context) => {
    const schema = context.getSchema();
    const fragmentCosts = new Map<string, number>();
    const inProgress = new Set<string>();

    function selectionSetCost(
      set: SelectionSetNode,
      parentType: GraphQLNamedType | undefined,
      operation: OperationDefinitionNode,
    ): number {
      let total = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          total += 1;
          if (!selection.selectionSet) continue;
          const fields = parentType && (isObjectType(parentType) || isInterfaceType(parentType)) ? parentType.getFields() : {};
          const fieldName = selection.name.value;
          const field =
            fields[fieldName] ??
            (fieldName === '__schema' ? SchemaMetaFieldDef : fieldName === '__type' ? TypeMetaFieldDef : undefined);
          const childType = field ? getNamedType(field.type) : undefined;
          const childCost = selectionSetCost(selection.selectionSet, childType, operation);
          const first = selection.arguments?.find((a) => a.name.value === 'first');
          const multiplier =
            field && field.args.some((a) => a.name === 'first')
              ? requestedPageSize(field, first?.value, operation, options.maxPageSize)
              : 1;
          total += multiplier * childCost;
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parentType;
          total += selectionSetCost(selection.selectionSet, type ?? undefined, operation);
        } else {
          total += fragmentCost(context.getFragment(selection.name.value), operation);
        }
      }
      return total;
    }

    function fragmentCost(fragment: FragmentDefinitionNode | null | undefined, operation: OperationDefinitionNode): number {
      // An unknown or cyclic fragment is reported by graphql's own rules.
      if (!fragment || inProgress.has(fragment.name.value)) return 0;
      const known = fragmentCosts.get(fragment.name.value);
      if (known !== undefined) return known;
      inProgress.add(fragment.name.value);
      const cost = selectionSetCost(
        fragment.selectionSet,
        schema.getType(fragment.typeCondition.name.value) ?? undefined,
        operation,
      );
      inProgress.delete(fragment.name.value);
      fragmentCosts.set(fragment.name.value, cost);
      return cost;
    }

    return {
      OperationDefinition(operation) {
        const rootType =
          operation.operation === 'query'
            ? schema.getQueryType()
            : operation.operation === 'mutation'
              ? schema.getMutationType()
              : schema.getSubscriptionType();
        // Fragment costs may depend on the operation's variable defaults.
        fragmentCosts.clear();
        const cost = selectionSetCost(operation.selectionSet, rootType ?? undefined, operation);
        if (cost > options.maxCost) {
          throw limitError(`Query cost limit of ${options.maxCost} exceeded, found ${cost}.`);
        }
      },
    };
  };
}

// graphql-depth-limit's wording: "'<operation>' exceeds maximum operation depth of <n>".
const DEPTH_LIMIT_MESSAGE = /exceeds maximum operation depth of (\d+)$/;

/**
 * Yoga plugins enforcing tokens, depth, aliases, directives and cost. Depth is
 * @envelop/depth-limit (graphql-depth-limit), which skips introspection fields:
 * introspection resolves in memory, and its nesting is bounded by the token limit.
 */
export function useGraphQLLimits(
  config: LimitsConfig,
  /** Whether Yoga's parse cache holds this text: it was counted when first parsed. */
  isParsedAlready: (query: string) => boolean = () => false,
): Plugin {
  const rules: ValidationRule[] = [
    maxAliasesRule({ n: config.graphqlMaxAliases, onReject: rejectWithLimitError }),
    maxDirectivesRule({ n: config.graphqlMaxDirectives, onReject: rejectWithLimitError }),
    costLimitRule({ maxCost: config.graphqlMaxCost, maxPageSize: config.maxPageSize }),
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
    onValidate({ addValidationRule }) {
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
