import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What is known about the request being served, wherever the code runs on its
 * behalf (dispatcher, Yoga plugins, services): the logger stamps `reqId` on every
 * line from here, so no function has to pass a request logger along.
 */
export interface RequestContext {
  reqId: string;
  /** Filled by the GraphQL layer once the operation is known; the access line reports it. */
  operationName?: string | null;
  /**
   * Aborted when the request's work should stop: the execution deadline passed or
   * the client went away. The database layer then starts no further statement for
   * the request and cancels the one running (abort.ts, pg-pool.ts).
   */
  controller?: AbortController;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();
