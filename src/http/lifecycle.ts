import type http from 'node:http';
import type { ServerResponse } from 'node:http';

/**
 * starting: listening, but the database is not ready yet (probes answer, the rest 503);
 * serving: normal; draining: shutting down, /ready is 503 and connections are closed
 * as their responses end.
 */
export type Phase = 'starting' | 'serving' | 'draining';

export function createLifecycle(initial: Phase = 'serving') {
  let phase: Phase = initial;
  const inFlight = new Set<ServerResponse>();
  let sweep: (() => void) | undefined;

  return {
    get phase() {
      return phase;
    },
    markServing() {
      if (phase === 'starting') phase = 'serving';
    },

    /** Called for every request: during a drain its response closes the connection. */
    track(res: ServerResponse) {
      inFlight.add(res);
      if (phase === 'draining') res.setHeader('Connection', 'close');
      res.once('close', () => {
        inFlight.delete(res);
        if (sweep) setImmediate(sweep);
      });
    },

    /**
     * Stops accepting, lets in-flight requests finish (each answered with
     * `Connection: close`), closes keep-alive connections as they fall idle,
     * and after timeoutMs destroys whatever connection is left.
     */
    async drain(server: http.Server, timeoutMs: number): Promise<void> {
      phase = 'draining';
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (!server.listening) return;
      sweep = () => server.closeIdleConnections();
      // A response whose headers went out before the drain still keeps its
      // socket alive; sweeping catches it once it falls idle.
      const sweeper = setInterval(sweep, 100);
      const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
      try {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
      } finally {
        clearInterval(sweeper);
        clearTimeout(deadline);
        sweep = undefined;
      }
    },
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
