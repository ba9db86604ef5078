import { getOperationAST, OperationTypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { readOnReplicas } from '../../platform/replicas.ts';

/**
 * A query's statements may read from a standby (the database layer decides which, and whether one is fresh
 * enough); a mutation's never do. Sets the execute function: after graphql-jit's, before the deadline's.
 */
export function useReplicaReads(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (getOperationAST(args.document, args.operationName)?.operation !== OperationTypeNode.QUERY) return;
      setExecuteFn((execution) => readOnReplicas(() => executeFn(execution)));
    },
  };
}
