import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientIp } from '../../src/http/client-ip.ts';
import { ipBucket, throttleKeys, throttleVerdict } from '../../src/modules/auth/throttle.ts';

describe('ipBucket', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s -> %s', (ip, bucket) => expect(ipBucket(ip)).toBe(bucket));
});

describe('throttleKeys', () => {
  it('hashes the email with the IP bucket; one IPv6 /64 is one bucket', () => {
    const a = throttleKeys('a@example.com', '2001:db8:1:2::1');
    const b = throttleKeys('a@example.com', '2001:db8:1:2::2');
    expect(a).toEqual(b);
    expect(a.ip).toBe('ip:2001:db8:1:2::/64');
    expect(a.account).toMatch(/^login:[0-9a-f]{64}$/);
    expect(throttleKeys('b@example.com', '2001:db8:1:2::1').account).not.toBe(a.account);
  });
});

describe('throttleVerdict', () => {
  const keys = { account: 'login:x', ip: 'ip:1.2.3.4' };
  const limits = { maxAttempts: 5, maxAttemptsPerIp: 20 };
  it('allows up to each limit and reports the longest wait beyond', () => {
    expect(
      throttleVerdict(
        [
          { key: keys.account, hits: 5, retry_after: 9 },
          { key: keys.ip, hits: 20, retry_after: 9 },
        ],
        keys,
        limits,
      ),
    ).toBeNull();
    expect(
      throttleVerdict(
        [
          { key: keys.account, hits: 6, retry_after: 9 },
          { key: keys.ip, hits: 6, retry_after: 40 },
        ],
        keys,
        limits,
      ),
    ).toBe(9);
    expect(
      throttleVerdict(
        [
          { key: keys.account, hits: 6, retry_after: 9 },
          { key: keys.ip, hits: 21, retry_after: 40 },
        ],
        keys,
        limits,
      ),
    ).toBe(40);
  });
});

describe('clientIp', () => {
  const req = (remoteAddress: string, xff?: string[]) =>
    ({
      socket: { remoteAddress },
      headersDistinct: xff ? { 'x-forwarded-for': xff } : {},
    }) as unknown as IncomingMessage;

  it('ignores X-Forwarded-For unless proxies are trusted', () => {
    expect(clientIp(req('10.0.0.1', ['1.1.1.1']), 0)).toBe('10.0.0.1');
    expect(clientIp(req('::ffff:10.0.0.1'), 0)).toBe('10.0.0.1');
  });

  it('takes the N-th entry from the right behind N trusted hops', () => {
    expect(clientIp(req('10.0.0.1', ['6.6.6.6, 1.1.1.1']), 1)).toBe('1.1.1.1');
    expect(clientIp(req('10.0.0.1', ['6.6.6.6, 1.1.1.1', '10.0.0.2']), 2)).toBe('1.1.1.1');
    // Fewer entries than hops: the leftmost one a trusted hop wrote.
    expect(clientIp(req('10.0.0.1', ['1.1.1.1']), 3)).toBe('1.1.1.1');
    expect(clientIp(req('10.0.0.1'), 1)).toBe('10.0.0.1');
  });

  it('stops at a malformed entry', () => {
    expect(clientIp(req('10.0.0.1', ['1.1.1.1, not-an-ip']), 2)).toBe('10.0.0.1');
    expect(clientIp(req('10.0.0.1', ['nonsense, 2.2.2.2']), 2)).toBe('2.2.2.2');
  });
});
