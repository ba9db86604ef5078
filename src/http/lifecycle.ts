import http from 'node:http';
import net from 'node:net';
import type { ServerResponse } from 'node:http';

/** starting: only probes answer, the rest 503; draining: /ready 503, connections closed as their responses end. */
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

  // Only after a served request, so its client expects a close. Destroyed, not ended: after a half-close Node
  // would still read and start a next request whose response could no longer be sent.
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

    track(res: ServerResponse) {
      inFlight.add(res);
      if (phase === 'draining') res.setHeader('Connection', 'close');
      res.once('close', () => inFlight.delete(res));
    },

    async drain(server: http.Server, timeoutMs: number): Promise<void> {
      phase = 'draining';
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => {
        // Not http.Server#close: it would also destroy a just-accepted connection whose first request is still
        // unread. Stop the listener only; idle connections are closed here.
        net.Server.prototype.close.call(server, () => resolve());
      });
      for (const [socket, c] of connections) closeIfIdle(socket, c);
      const grace = setTimeout(
        () => {
          for (const [socket, c] of connections) if (c.served === 0) socket.destroy();
        },
        Math.min(FIRST_REQUEST_GRACE_MS, timeoutMs),
      );
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
