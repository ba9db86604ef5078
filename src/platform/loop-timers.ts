// Timeouts that expire only when the event loop had time to hear the answer. A timer fires late when the
// loop was busy (a large answer serialised, a long collection) or the process got no CPU: what arrived
// meanwhile (a pooled connection handed back, a query's rows, a heartbeat's reply) is still waiting in its
// socket, and each turn of the loop runs its due timers before it reads sockets. So the wait runs in
// slices, and only the time of a slice that fired on time counts towards it: the time a slice was late
// (and that much of its own length) is not counted, and whatever came meanwhile is read before the next.

/** Lateness below this is ordinary scheduling on a busy machine: the slice counts whole. */
const ON_TIME_MS = 20;
const SLICES = 4;
/** A loop never free for a whole slice still gives up after this many (at least 10 times the delay). */
const MAX_SLICES = 10 * SLICES;

/**
 * Calls `onExpire` after `ms` of time in which the event loop was free to read sockets; the returned function
 * cancels it. `unref`: the timer alone does not keep the process alive.
 */
export function setLoopAwareTimeout(ms: number, onExpire: () => void, options: { unref?: boolean } = {}): () => void {
  const slice = Math.max(1, ms / SLICES);
  let timer: NodeJS.Timeout;
  let counted = 0;
  let slices = 0;
  const arm = () => {
    const delay = Math.min(slice, ms - counted);
    const due = performance.now() + delay;
    timer = setTimeout(() => {
      const late = performance.now() - due;
      counted += late <= ON_TIME_MS ? delay : Math.max(0, delay - late);
      if (counted >= ms || ++slices >= MAX_SLICES) return onExpire();
      arm();
    }, delay);
    if (options.unref) timer.unref();
  };
  arm();
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
