import { AsyncLocalStorage } from 'node:async_hooks';

/** The request being served, wherever code runs for it; the logger stamps `reqId` from here. */
export interface RequestContext {
  reqId: string;
  /** The route or endpoint the dispatcher matched (its pattern): the label of logs and metrics. */
  route?: string;
  /** Filled by the GraphQL layer once the operation is known; the access line reports it. */
  operationName?: string | null;
  /** The operation passed parsing and validation (or was answered from the cache, as one that had). */
  operationRan?: boolean;
  /** Aborted at the deadline or when the client leaves; the database layer then stops its statements (abort.ts). */
  controller?: AbortController;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();
