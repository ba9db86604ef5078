import net from 'node:net';
import type { IncomingMessage } from 'node:http';
import { unmapIPv4 } from '../platform/ip.ts';

/**
 * Behind N trusted proxies the client is the N-th X-Forwarded-For entry from the right; entries further left were
 * written by the client and never believed. A malformed entry stops at the last address a trusted hop vouched for.
 */
export function clientIp(req: IncomingMessage, trustedHops: number): string {
  const peer = unmapIPv4(req.socket.remoteAddress ?? 'unknown');
  if (trustedHops === 0) return peer;
  const forwarded = (req.headersDistinct['x-forwarded-for'] ?? [])
    .join(',')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .reverse();
  let ip = peer;
  for (let hop = 0; hop < trustedHops && hop < forwarded.length; hop++) {
    const candidate = unmapIPv4(forwarded[hop]!);
    if (net.isIP(candidate) === 0) break;
    ip = candidate;
  }
  return ip;
}
