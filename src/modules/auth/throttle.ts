import { createHash } from 'node:crypto';
import net from 'node:net';
import { unmapIPv4 } from '../../platform/ip.ts';
import type { ThrottleHit } from './throttle-repository.ts';

// Two buckets: (email, IP) against guessing one account, the IP alone against spraying many. Each attempt is
// counted atomically before any password work, so parallel guesses cannot slip between check and write; all but
// wrong passwords hand their count back, so the buckets count failed logins.

export interface ThrottleLimits {
  maxAttempts: number;
  maxAttemptsPerIp: number;
}

export interface ThrottleKeys {
  account: string;
  ip: string;
}

/** IPv6 is grouped by /64, the block one subscriber usually holds: rotating addresses inside it gains nothing. */
export function ipBucket(ip: string): string {
  ip = unmapIPv4(ip);
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
export function throttleVerdict(
  hits: readonly ThrottleHit[],
  keys: ThrottleKeys,
  limits: ThrottleLimits,
): number | null {
  let retryAfter: number | null = null;
  for (const hit of hits) {
    const limit = hit.key === keys.account ? limits.maxAttempts : limits.maxAttemptsPerIp;
    if (hit.hits > limit) retryAfter = Math.max(retryAfter ?? 0, hit.retry_after);
  }
  return retryAfter;
}
