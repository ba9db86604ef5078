import { getOperationAST } from 'graphql';
import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import { isDatabaseUnavailable } from '../platform/db-errors.ts';
import { serviceUnavailableGraphQLError } from '../platform/errors.ts';
import { requestContext } from '../platform/request-context.ts';
import { maskErrorEverywhere, shorten } from './request-errors.ts';

/** Tells the access log and the metrics which operation a /graphql request ran. */
export function useOperationName(): Plugin {
  return {
    onParams({ params }) {
      const store = requestContext.getStore();
      // Client-chosen and up to a body's size: logged and labelled at most 100 characters.
      if (store) store.operationName = params.operationName ? shorten(params.operationName) : null;
    },
    onExecute({ args }) {
      const store = requestContext.getStore();
      // Anonymous operations in a one-operation document still have a name to report.
      if (store && !store.operationName) {
        store.operationName = getOperationAST(args.document, args.operationName)?.name?.value ?? null;
      }
    },
  };
}

type MaskError = NonNullable<Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>['maskError']>;

/**
 * A resolver that failed because the database is away gets a retryable 503
 * (SERVICE_UNAVAILABLE); every other unexpected error is masked in every
 * NODE_ENV. Either way the client sees no SQL, stack or SQLSTATE.
 */
export const maskDatabaseUnavailable: MaskError = (error, message) =>
  isDatabaseUnavailable(error) ? serviceUnavailableGraphQLError() : maskErrorEverywhere(error, message);
