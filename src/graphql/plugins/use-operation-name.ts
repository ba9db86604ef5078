import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestContext } from '../../platform/request-context.ts';
import { shorten } from '../errors.ts';

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
