import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { useDepthLimit } from '@envelop/depth-limit';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  KnownFragmentNamesRule,
  specifiedRules,
  type DocumentNode,
  type GraphQLSchema,
  Lexer,
  NoFragmentCyclesRule,
  Source,
  TokenKind,
  validate,
  type ASTVisitor,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../../config.ts';
import { validationError } from '../errors.ts';

// Every limit refuses with 400 GRAPHQL_VALIDATION_FAILED whatever the Accept header, before any resolver runs.

export type LimitsConfig = Pick<Config['graphql'], 'maxDepth' | 'maxTokens' | 'maxAliases' | 'maxDirectives'>;

/** Operation types the schema has no root for (graphql 17's KnownOperationTypesRule). */
const knownOperationTypesRule: ValidationRule = (context): ASTVisitor => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(
        new GraphQLError(`This service does not support ${node.operation} operations.`, { nodes: node }),
      );
    }
  },
});

/** "__" names are reserved; walkers keep names as plain object keys, where "__proto__" is no key at all. */
const reservedNamesRule: ValidationRule = (context): ASTVisitor => {
  const check = (node: { name?: { value: string } | undefined }) => {
    const name = node.name?.value;
    if (name?.startsWith('__')) {
      context.reportError(
        new GraphQLError(`Names beginning with "__" are reserved for introspection: "${name}".`, {
          nodes: node as never,
        }),
      );
    }
  };
  return { OperationDefinition: check, FragmentDefinition: check };
};

const SOUNDNESS_RULES = [knownOperationTypesRule, reservedNamesRule, KnownFragmentNamesRule, NoFragmentCyclesRule];

// graphql-armor throws a bare "Syntax Error" (HTTP 200, no code); onReject runs first, so ours replaces it.
const rejectWithLimitError = [
  (_ctx: ValidationContext | null, error: GraphQLError) => {
    throw validationError(error.message.replace(/^Syntax Error: /, ''));
  },
];

/**
 * Not the parser's maxTokens: Yoga answers parse errors with 200 for application/json, and a limit is a 400.
 * The lexer does not recurse, so a deeply nested document is refused after maxTokens tokens.
 */
function assertTokenLimit(query: string, maxTokens: number): void {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) {
      if (++count > maxTokens) throw validationError(`Token limit of ${maxTokens} exceeded.`);
    }
  } catch (err) {
    if (err instanceof GraphQLError && err.extensions['code'] === 'GRAPHQL_VALIDATION_FAILED') throw err;
    // A lexical error: left to the parser, which reports it in the usual way.
  }
}

// graphql-depth-limit's wording: "'<operation>' exceeds maximum operation depth of <n>".
const DEPTH_LIMIT_MESSAGE = /exceeds maximum operation depth of (\d+)$/;

/** Tokens, depth, aliases, directives (cost needs variables: use-execution-limits.ts). Depth skips introspection; tokens bound it. */
export function useGraphQLLimits(
  config: LimitsConfig,
  /** Whether Yoga's parse cache holds this text: it was counted when first parsed. */
  isParsedAlready: (query: string) => boolean = () => false,
): Plugin {
  const rules: ValidationRule[] = [
    // graphql-armor lets aliases of __typename through by default: they are aliases too.
    maxAliasesRule({ n: config.maxAliases, allowList: [], onReject: rejectWithLimitError }),
    maxDirectivesRule({ n: config.maxDirectives, onReject: rejectWithLimitError }),
  ];
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(useDepthLimit({ maxDepth: config.maxDepth }) as Plugin);
    },
    onParams({ params }) {
      if (typeof params.query === 'string' && !isParsedAlready(params.query)) {
        assertTokenLimit(params.query, config.maxTokens);
      }
    },
    onValidate({ addValidationRule, params, setResult }) {
      // The depth and alias walkers recurse through fragments by name: cycles are refused before they run.
      const unsound = validate(params.schema, params.documentAST, SOUNDNESS_RULES);
      if (unsound.length > 0) {
        setResult(unsound.map((e) => validationError(e.message, e)));
        return;
      }
      for (const rule of rules) addValidationRule(rule);
      // The depth rule's bare error gets the same code and 400 as every other limit.
      return ({ result, setResult }) => {
        if (!result.some((e) => DEPTH_LIMIT_MESSAGE.test(e.message))) return;
        setResult(
          result.map((e) => {
            const depth = DEPTH_LIMIT_MESSAGE.exec(e.message);
            return depth ? validationError(`Query depth limit of ${depth[1]} exceeded.`) : e;
          }),
        );
      };
    },
  };
}

/**
 * What a request with this document would be refused for before it runs (validation and the limits
 * above; cost needs the variables and is checked per request): for documents registered ahead of time,
 * checked once when they are pushed. Empty: none.
 */
export function documentRefusals(
  schema: GraphQLSchema,
  document: DocumentNode,
  query: string,
  config: LimitsConfig,
): string[] {
  try {
    assertTokenLimit(query, config.maxTokens);
    const unsound = validate(schema, document, SOUNDNESS_RULES);
    if (unsound.length > 0) return unsound.map((e) => e.message);
    const rules: ValidationRule[] = [
      ...specifiedRules,
      maxAliasesRule({ n: config.maxAliases, allowList: [], onReject: rejectWithLimitError }),
      maxDirectivesRule({ n: config.maxDirectives, onReject: rejectWithLimitError }),
    ];
    (useDepthLimit({ maxDepth: config.maxDepth }).onValidate as (p: object) => void)({
      addValidationRule: (rule: ValidationRule) => rules.push(rule),
    });
    return validate(schema, document, rules).map((e) => {
      const depth = DEPTH_LIMIT_MESSAGE.exec(e.message);
      return depth ? `Query depth limit of ${depth[1]} exceeded.` : e.message;
    });
  } catch (err) {
    if (err instanceof GraphQLError) return [err.message];
    throw err;
  }
}
