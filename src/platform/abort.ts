import { requestContext } from './request-context.ts';

/** A statement refused because the request it ran for was aborted (deadline, or the client left). */
export class StatementAbortedError extends Error {
  constructor() {
    super('The request was aborted; no further statement runs for it.');
    this.name = 'StatementAbortedError';
  }
}

export function requestSignal(): AbortSignal | undefined {
  return requestContext.getStore()?.controller?.signal;
}

/** ROLLBACK still runs: a transaction cut short must end before its connection goes back to the pool. */
export function assertStatementMayRun(sqlText: string): void {
  if (requestSignal()?.aborted && !/^\s*rollback\b/i.test(sqlText)) throw new StatementAbortedError();
}
