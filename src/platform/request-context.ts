import { AsyncLocalStorage } from 'node:async_hooks';
import { tenantKey } from './tenancy.ts';

/** The request being served, wherever code runs for it; the logger stamps `reqId` from here. */
export interface RequestContext {
  reqId: string;
  /** The route or endpoint the dispatcher matched (its pattern): the label of logs and metrics. */
  route?: string;
  /** The slug of the customer company the request is for (its host's). */
  tenant?: string;
  /** Filled by the GraphQL layer once the operation is known; the access line reports it. */
  operationName?: string | null;
  /** The operation passed parsing and validation (or was answered from the cache, as one that had). */
  operationRan?: boolean;
  /** Aborted at the deadline or when the client leaves; the database layer then stops its statements (abort.ts). */
  controller?: AbortController;
  /** What the answer was read from, in the change feed's terms: the response cache drops it when one of them changes. */
  readFrom?: Set<string>;
  /** Present while the request's reads may use a standby (replicas.ts). */
  replicaReads?: ReplicaReads;
}

/** The standby a request's reads began on, so its statements never go back in time. */
export interface ReplicaReads {
  pinned: unknown;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** Notes that the request's answer depends on these (a module's change tags, in its tenant; see the response cache). */
export function dependsOn(tags: Iterable<string>): void {
  const store = requestContext.getStore();
  if (!store) return;
  store.readFrom ??= new Set();
  for (const tag of tags) store.readFrom.add(tenantKey(tag));
}
