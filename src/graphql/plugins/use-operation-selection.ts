import { Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { shorten, validationError } from '../errors.ts';

/** A missing or unknown operationName is a 400 in graphql-js's wording, ahead of Yoga's vaguer check. */
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
            throw validationError(`Unknown operation named "${shorten(operationName)}".`);
          }
        } else if (operations.length > 1) {
          throw validationError('Must provide operation name if query contains multiple operations.');
        }
      };
    },
  };
}
