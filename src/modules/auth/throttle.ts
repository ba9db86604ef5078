import { createHash } from 'node:crypto';
import net from 'node:net';
import type { ThrottleHit } from './repository.ts';

/**
 * Login throttling in the manner of Laravel's RateLimiter, with two buckets per
 * attempt: (lowercased email, client IP) against guessing one account's password,
 * and the client IP alone against spraying one password over many accounts.
 *
 * Every attempt is counted before any password work (atomically, in the database),
 * so a burst of parallel guesses cannot slip past the limit between a check and a
 * write. Attempts that did not end in a wrong password hand their count back: a
 * success clears the (email, ip) bucket and releases the IP one; a refused attempt
 * (throttled, or hashing at capacity) releases both. So the buckets count failed
 * logins, and a locked-out user retrying does not use up the IP's budget.
 */

export interface ThrottleLimits {
  maxAttempts: number;
  maxAttemptsPerIp: number;
}

export interface ThrottleKeys {
  account: string;
  ip: string;
}

/**
 * The IP bucket for an address: IPv6 clients are grouped by /64, the block one
 * subscriber usually holds, so rotating addresses inside it gains nothing.
 */
export function ipBucket(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (net.isIPv6(ip)) return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
  return ip;
}

function expandIPv6(ip: string): string[] {
  const [head = '', tail] = ip.split('%')[0]!.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((h) => h.replace(/^0+(?=.)/, ''));
}

/** Bucket keys. The email is hashed: attempted addresses (often typos) are not kept in clear. */
export function throttleKeys(email: string, ip: string): ThrottleKeys {
  const bucket = ipBucket(ip);
  const account = createHash('sha256').update(`${email}|${bucket}`, 'utf8').digest('hex');
  return { account: `login:${account}`, ip: `ip:${bucket}` };
}

/** Null when the attempt may go ahead; otherwise the seconds until the fullest bucket reopens. */
export function throttleVerdict(hits: readonly ThrottleHit[], keys: ThrottleKeys, limits: ThrottleLimits): number | null {
  let retryAfter: number | null = null;
  for (const hit of hits) {
    const limit = hit.key === keys.account ? limits.maxAttempts : limits.maxAttemptsPerIp;
    if (hit.hits > limit) retryAfter = Math.max(retryAfter ?? 0, hit.retry_after);
  }
  return retryAfter;
}
