import http from 'node:http';
import net from 'node:net';
import type { ServerResponse } from 'node:http';

/**
 * starting: listening, but the database is not ready yet (probes answer, the rest 503);
 * serving: normal; draining: shutting down, /ready is 503 and connections are closed
 * as their responses end.
 */
export type Phase = 'starting' | 'serving' | 'draining';

/** How long a connection that has not sent its first request yet may still send it once draining. */
const FIRST_REQUEST_GRACE_MS = 1_000;

interface Connection {
  served: number;
  active: number;
}

export function createLifecycle(initial: Phase = 'serving') {
  let phase: Phase = initial;
  const connections = new Map<net.Socket, Connection>();
  const inFlight = new Set<ServerResponse>();

  /**
   * A keep-alive connection with nothing in flight that has already served a
   * request: its client must expect it to close (and retry on a reused connection).
   * Destroyed, not ended: after a half-close Node would still read, and start, a
   * next request whose response could no longer be sent.
   */
  const closeIfIdle = (socket: net.Socket, c: Connection) => {
    if (c.active === 0 && c.served > 0) socket.destroy();
  };

  return {
    get phase() {
      return phase;
    },
    markServing() {
      if (phase === 'starting') phase = 'serving';
    },

    /** Follows the server's connections and requests, so a drain knows which are idle. */
    attach(server: http.Server) {
      server.on('connection', (socket: net.Socket) => {
        const c: Connection = { served: 0, active: 0 };
        connections.set(socket, c);
        socket.once('close', () => connections.delete(socket));
      });
      server.on('request', (req: http.IncomingMessage, res: ServerResponse) => {
        const c = connections.get(req.socket);
        if (!c) return;
        c.served++;
        c.active++;
        res.once('close', () => {
          c.active--;
          if (phase === 'draining') closeIfIdle(req.socket, c);
        });
      });
    },

    /** Called for every request: during a drain its response closes the connection. */
    track(res: ServerResponse) {
      inFlight.add(res);
      if (phase === 'draining') res.setHeader('Connection', 'close');
      res.once('close', () => inFlight.delete(res));
    },

    /**
     * Stops accepting, lets in-flight requests finish (each answered with
     * `Connection: close`), closes keep-alive connections as they fall idle, and
     * after timeoutMs destroys whatever connection is left.
     */
    async drain(server: http.Server, timeoutMs: number): Promise<void> {
      phase = 'draining';
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => {
        // http.Server#close would also destroy every idle connection at once,
        // including one just accepted whose first request is still unread in
        // the socket buffer: that request would be lost. Stop the listener only,
        // and close idle connections here with that case in mind.
        net.Server.prototype.close.call(server, () => resolve());
      });
      for (const [socket, c] of connections) closeIfIdle(socket, c);
      const grace = setTimeout(() => {
        for (const [socket, c] of connections) if (c.served === 0) socket.destroy();
      }, Math.min(FIRST_REQUEST_GRACE_MS, timeoutMs));
      const deadline = setTimeout(() => {
        for (const socket of connections.keys()) socket.destroy();
      }, timeoutMs);
      try {
        await closed;
      } finally {
        clearTimeout(grace);
        clearTimeout(deadline);
      }
    },
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
