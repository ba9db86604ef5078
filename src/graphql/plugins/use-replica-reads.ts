import { getOperationAST, OperationTypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { allowReplicaReads } from '../../platform/replicas.ts';

/** A query's statements may read from a standby (the database layer decides which, and whether one is fresh enough); a mutation's never do. */
export function useReplicaReads(): Plugin {
  return {
    onExecute({ args }) {
      if (getOperationAST(args.document, args.operationName)?.operation === OperationTypeNode.QUERY)
        allowReplicaReads();
    },
  };
}
