import { getOperationAST, Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestContext } from '../platform/request-context.ts';
import { shorten, validationError } from './errors.ts';

/** Tells the access log and the metrics which operation a /graphql request ran. */
export function useOperationName(): Plugin {
  return {
    onParams({ params }) {
      const store = requestContext.getStore();
      if (store) store.operationName = params.operationName ? shorten(params.operationName) : null;
    },
    onExecute({ args }) {
      const store = requestContext.getStore();
      if (!store) return;
      // Only now is the name one of a valid document's operations: it may become a metrics label.
      store.operationRan = true;
      // Anonymous operations in a one-operation document still have a name to report.
      if (!store.operationName) {
        store.operationName = getOperationAST(args.document, args.operationName)?.name?.value ?? null;
      }
    },
  };
}

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
