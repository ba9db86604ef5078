import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../../platform/logger.ts';
import { requestContext } from '../../platform/request-context.ts';
import { deadlineError } from '../errors.ts';

/** `execute`'s result, or past `timeoutMs` a 504 result, the request aborted (which cancels its running statement). */
export function withDeadline<T>(
  execute: () => T | Promise<T>,
  timeoutMs: number,
  logger: Logger,
): Promise<T | ExecutionResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ExecutionResult>((resolve) => {
    timer = setTimeout(() => {
      logger.warn({ timeoutMs }, 'execution deadline passed; aborted');
      requestContext.getStore()?.controller?.abort();
      resolve({ errors: [deadlineError(timeoutMs)] });
    }, timeoutMs);
  });
  const execution = new Promise<T>((resolve) => resolve(execute())).finally(() => clearTimeout(timer));
  return Promise.race([execution, deadline]);
}

/**
 * Past `timeoutMs`, answers 504 and aborts the request, which cancels its running statement (platform/abort.ts).
 * Must be the last plugin that sets the execute function, to wrap the one that runs.
 */
export function useExecutionDeadline(timeoutMs: number, logger: Logger): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => withDeadline(() => executeFn(args), timeoutMs, logger) as ReturnType<typeof executeFn>);
    },
  };
}
