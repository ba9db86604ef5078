import net from 'node:net';
import type { IncomingMessage } from 'node:http';

/**
 * The client's address. With trustedHops = 0 (the default) it is the socket's
 * peer and X-Forwarded-For is ignored: anyone can write that header. Behind N
 * trusted proxies, each appends the address it received from, so the client is
 * the N-th entry from the right; entries further left were written by the
 * client and are never believed. A malformed entry stops the walk at the last
 * address a trusted hop vouched for.
 */
export function clientIp(req: IncomingMessage, trustedHops: number): string {
  const peer = normalise(req.socket.remoteAddress ?? 'unknown');
  if (trustedHops === 0) return peer;
  const forwarded = (req.headersDistinct['x-forwarded-for'] ?? [])
    .join(',')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .reverse();
  let ip = peer;
  for (let hop = 0; hop < trustedHops && hop < forwarded.length; hop++) {
    const candidate = normalise(forwarded[hop]!);
    if (net.isIP(candidate) === 0) break;
    ip = candidate;
  }
  return ip;
}

/** IPv4 clients of a dual-stack socket show up as ::ffff:a.b.c.d; log and count them as a.b.c.d. */
function normalise(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}
