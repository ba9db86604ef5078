import type { IncomingMessage } from 'node:http';

/** A Host header's name as tenants' hosts are stored: port stripped, lowercased, no trailing dot. */
export function normalizeHost(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    host = end < 0 ? host : host.slice(0, end + 1);
  } else {
    const colon = host.indexOf(':');
    if (colon >= 0) host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host.length > 0 && host.length <= 253 && !/\s/.test(host) ? host : undefined;
}

/**
 * The host a request was addressed to. Behind N trusted proxies, X-Forwarded-Host as the N-th proxy from
 * the client's end wrote it (as client IPs are read); otherwise, and without one, the Host header.
 */
export function requestHost(req: IncomingMessage, trustedHops: number): string | undefined {
  if (trustedHops > 0) {
    const forwarded = (req.headersDistinct['x-forwarded-host'] ?? [])
      .join(',')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (forwarded.length > 0) return normalizeHost(forwarded[Math.max(0, forwarded.length - trustedHops)]);
  }
  return normalizeHost(req.headers.host);
}
