import { requestContext } from './request-context.ts';

/** A statement refused because the request it ran for was aborted (deadline, or the client left). */
export class StatementAbortedError extends Error {
  constructor() {
    super('The request was aborted; no further statement runs for it.');
    this.name = 'StatementAbortedError';
  }
}

/** The abort signal of the request being served, if it has one. */
export function requestSignal(): AbortSignal | undefined {
  return requestContext.getStore()?.controller?.signal;
}

/**
 * Throws instead of starting a statement for an aborted request. ROLLBACK still
 * runs: a transaction cut short must end, or its connection would go back to
 * the pool mid-transaction.
 */
export function assertStatementMayRun(sqlText: string): void {
  if (requestSignal()?.aborted && !/^\s*rollback\b/i.test(sqlText)) throw new StatementAbortedError();
}
