import { GraphQLError, Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { createGraphQLError, maskError, type Plugin } from 'graphql-yoga';

/**
 * How /graphql words the errors of a bad request: nothing internal leaves, and
 * each refusal says what was wrong with a code a client can match on.
 */

export const MASKED_ERROR_MESSAGE = 'Unexpected error.';

/**
 * Yoga's masking, with development mode off whatever NODE_ENV says, and two
 * changes to Yoga's own request errors (code BAD_REQUEST: malformed JSON, no
 * body, a query that is not a string): their `originalError` extension is
 * dropped (it echoes the body back in the JSON parser's message), and they are a
 * 400 for every client. The GraphQL-over-HTTP spec asks for 200 with
 * application/json only for well-formed requests; these are not.
 */
export function maskErrorEverywhere(error: unknown, message: string): Error {
  const masked = maskError(error, message, false);
  if (!(masked instanceof GraphQLError)) return masked;
  const { originalError, http, ...rest } = masked.extensions as Record<string, unknown> & {
    http?: { status?: number; spec?: boolean; headers?: Record<string, string> };
  };
  const badRequest = rest['code'] === 'BAD_REQUEST' && http?.spec === true;
  if (originalError === undefined && !badRequest) return masked;
  return createGraphQLError(masked.message, {
    nodes: masked.nodes,
    source: masked.source,
    positions: masked.positions,
    path: masked.path,
    extensions: { ...rest, ...(http ? { http: badRequest ? { ...http, spec: false } : http } : {}) },
  });
}

/** A client-chosen name as echoed in messages and logs: at most 100 characters. */
export function shorten(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

function operationError(message: string): GraphQLError {
  return createGraphQLError(message, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400, spec: false } },
  });
}

/**
 * An unknown operationName, or several operations and no name, are refused with
 * graphql-js's own wording, with a 400 for every client (the request names
 * nothing that can run). Runs right after parsing (cached or not), ahead of
 * Yoga's check, which would say only "Could not determine what operation to execute."
 */
export function useOperationSelection(): Plugin {
  return {
    onParse({ context }) {
      const operationName = (context as { params?: { operationName?: unknown } }).params?.operationName;
      return ({ result }) => {
        if (!result || result instanceof Error || !('definitions' in result)) return;
        const operations = (result as DocumentNode).definitions.filter(
          (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
        );
        if (typeof operationName === 'string' && operationName !== '') {
          if (!operations.some((o) => o.name?.value === operationName)) {
            throw operationError(`Unknown operation named "${shorten(operationName)}".`);
          }
        } else if (operations.length > 1) {
          throw operationError('Must provide operation name if query contains multiple operations.');
        }
      };
    },
  };
}
