// Timeouts that expire only when the event loop had time to hear the answer. A timer fires late when the
// loop was busy (a large answer serialised, a long collection): what arrived meanwhile (a pooled connection
// handed back, a query's rows, a heartbeat's reply) is still waiting in its socket, and each turn of the
// loop runs its due timers before it reads sockets. So a timer that fires late waits again, for as long as
// it was late (in all at most its own delay once more), and expires only once it fires on time: the loop
// was free meanwhile, so an answer that had come would have been read.

/** Lateness below this is ordinary scheduling on a busy machine, not a blocked loop. */
const ON_TIME_MS = 20;

/**
 * Calls `onExpire` after `ms` of time in which the event loop was free to read sockets; the returned function
 * cancels it. `unref`: the timer alone does not keep the process alive.
 */
export function setLoopAwareTimeout(ms: number, onExpire: () => void, options: { unref?: boolean } = {}): () => void {
  let timer: NodeJS.Timeout;
  let extendedMs = 0;
  const arm = (delay: number) => {
    const due = performance.now() + delay;
    timer = setTimeout(() => {
      const late = performance.now() - due;
      if (late <= ON_TIME_MS || extendedMs >= ms) return onExpire();
      const again = Math.min(late, ms - extendedMs);
      extendedMs += again;
      arm(again);
    }, delay);
    if (options.unref) timer.unref();
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/**
 * `work`, or `timeoutError()` once `ms` of free loop time passed first. What `work` gives after that goes to
 * `abandon` (release a connection that came too late), never to the caller.
 */
export function withinLoopAwareTimeout<T>(
  work: Promise<T>,
  ms: number,
  timeoutError: () => Error,
  abandon: (late: Promise<T>) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const cancel = setLoopAwareTimeout(ms, () => {
      settled = true;
      abandon(work);
      reject(timeoutError());
    });
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        cancel();
        resolve(value);
      },
      (err: Error) => {
        if (settled) return;
        settled = true;
        cancel();
        reject(err);
      },
    );
  });
}
