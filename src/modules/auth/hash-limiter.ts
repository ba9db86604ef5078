/**
 * Bounds password work: whole login attempts and other hashing. Each argon2 hash or
 * verify holds ~19 MiB and a libuv thread for tens of milliseconds, and a login
 * also holds database connections (its throttle row is shared by every login from
 * one IP); a burst left unbounded would take every thread-pool thread and every
 * pooled connection, stalling GraphQL. At most `concurrency` run at once, at most
 * `maxQueue` wait, none waits longer than `maxWaitMs`; the rest are refused at once
 * with HashBusyError, which the login route answers with 503 and Retry-After.
 */

export class HashBusyError extends Error {
  constructor() {
    super('Password hashing is at capacity.');
    this.name = 'HashBusyError';
  }
}

export interface HashLimiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Running and waiting tasks, for diagnostics. */
  readonly stats: { running: number; waiting: number };
}

export function createHashLimiter(options: { concurrency: number; maxQueue: number; maxWaitMs: number }): HashLimiter {
  const { concurrency, maxQueue, maxWaitMs } = options;
  let running = 0;
  const waiting: { start: () => void; timer: NodeJS.Timeout }[] = [];

  // A finished task hands its slot straight to the oldest waiter, so `running`
  // never drops below the bound while anyone waits.
  function release(): void {
    const next = waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start();
    } else {
      running--;
    }
  }

  function acquire(): Promise<void> {
    if (running < concurrency) {
      running++;
      return Promise.resolve();
    }
    if (waiting.length >= maxQueue) return Promise.reject(new HashBusyError());
    return new Promise<void>((resolve, reject) => {
      const entry = {
        start: resolve,
        timer: setTimeout(() => {
          const at = waiting.indexOf(entry);
          if (at !== -1) waiting.splice(at, 1);
          reject(new HashBusyError());
        }, maxWaitMs),
      };
      waiting.push(entry);
    });
  }

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get stats() {
      return { running, waiting: waiting.length };
    },
  };
}
