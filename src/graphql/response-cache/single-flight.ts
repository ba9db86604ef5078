import { LRUCache } from 'lru-cache';

/** Longer than any execution should take (GRAPHQL_EXECUTION_TIMEOUT_MS defaults to 10 s): a flight this old was lost. */
const FLIGHT_MAX_MS = 15_000;

interface Flight<T> {
  leader: object;
  at: number;
  landed: Promise<T | undefined>;
  land(answer: T | undefined): void;
}

/**
 * Identical requests while one executes wait for its answer instead of executing again. A key whose
 * execution ended without an answer to share (errors, private fields) is not waited for next time.
 */
export function createSingleFlight<T>() {
  const flights = new Map<string, Flight<T>>();
  const unshared = new LRUCache<string, true>({ max: 1_000 });
  const live = (key: string) => {
    const flight = flights.get(key);
    if (flight && performance.now() - flight.at > FLIGHT_MAX_MS) {
      flights.delete(key);
      return undefined;
    }
    return flight;
  };

  return {
    /** The answer of the request executing `key`, if another is; nothing once `signal` aborts. */
    join(key: string, follower: object, signal?: AbortSignal): Promise<T | undefined> | undefined {
      const flight = live(key);
      if (!flight || flight.leader === follower || unshared.has(key)) return undefined;
      return waitFor(flight.landed, signal);
    },
    /** `leader` is about to execute `key`. */
    takeOff(key: string, leader: object) {
      if (!live(key) && !unshared.has(key)) flights.set(key, newFlight(leader));
    },
    /** `leader`'s execution of `key` ended with this answer, or none to share. */
    land(key: string, leader: object, answer: T | undefined) {
      const flight = flights.get(key);
      if (!flight || flight.leader !== leader) return;
      flights.delete(key);
      if (answer === undefined) unshared.set(key, true);
      flight.land(answer);
    },
  };
}

function newFlight<T>(leader: object): Flight<T> {
  let land!: (answer: T | undefined) => void;
  const landed = new Promise<T | undefined>((resolve) => (land = resolve));
  return { leader, at: performance.now(), landed, land };
}

function waitFor<T>(landed: Promise<T | undefined>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return landed;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    void landed.then((answer) => {
      signal.removeEventListener('abort', onAbort);
      resolve(answer);
    });
  });
}
