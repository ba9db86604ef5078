import type { ExecutionResult } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Logger } from '../platform/logger.ts';
import { requestContext } from '../platform/request-context.ts';

/**
 * An execution that runs past `timeoutMs` is answered 504 at once, and the
 * request is aborted: the database layer starts no further statement for it and
 * cancels the one running (platform/abort.ts), so its connection is free again.
 * Must be the last plugin that sets the execute function, to wrap the one that runs.
 */
export function useExecutionDeadline(timeoutMs: number, logger: Logger): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<ExecutionResult>((resolve) => {
          timer = setTimeout(() => {
            logger.warn({ timeoutMs }, 'execution deadline passed; aborted');
            requestContext.getStore()?.controller?.abort();
            resolve({
              errors: [
                createGraphQLError(`The operation took longer than ${timeoutMs} ms and was aborted.`, {
                  extensions: { code: 'EXECUTION_TIMEOUT', http: { status: 504, spec: false } },
                }),
              ],
            });
          }, timeoutMs);
        });
        const execution = new Promise((resolve) => resolve(executeFn(args))).finally(() => clearTimeout(timer));
        return Promise.race([execution, deadline]) as ReturnType<typeof executeFn>;
      });
    },
  };
}
