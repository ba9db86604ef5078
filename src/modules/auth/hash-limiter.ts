// Each argon2 hash holds 19 MiB and a libuv thread, and a login also holds database connections: unbounded, a
// burst would take every pool thread and connection and stall GraphQL. Past `concurrency` running, `maxQueue`
// waiting or `maxWaitMs`, HashBusyError (503 with Retry-After).

export class HashBusyError extends Error {
  constructor() {
    super('Password hashing is at capacity.');
    this.name = 'HashBusyError';
  }
}

export interface HashLimiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly stats: { running: number; waiting: number };
}

export function createHashLimiter(options: { concurrency: number; maxQueue: number; maxWaitMs: number }): HashLimiter {
  const { concurrency, maxQueue, maxWaitMs } = options;
  let running = 0;
  const waiting: { start: () => void; timer: NodeJS.Timeout }[] = [];

  // A finished task hands its slot straight to the oldest waiter: `running` stays at the bound while anyone waits.
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
