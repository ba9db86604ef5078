import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { normalizeHost, requestHost } from '../../src/modules/tenants/hosts.ts';
import { splitTenantPayload, tenantKey, withTenant } from '../../src/platform/tenancy.ts';

const request = (headers: Record<string, string | string[]>) => {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    headers: { host: lower.host },
    headersDistinct: Object.fromEntries(Object.entries(lower).map(([k, v]) => [k, Array.isArray(v) ? v : [v]])),
  } as unknown as IncomingMessage;
};

describe('host names as tenants are found by', () => {
  it.each([
    ['Shop.Example.COM', 'shop.example.com'],
    ['shop.example.com:8443', 'shop.example.com'],
    ['shop.example.com.', 'shop.example.com'],
    ['[::1]:3000', '[::1]'],
    ['127.0.0.1:3000', '127.0.0.1'],
  ])('%s → %s', (value, host) => expect(normalizeHost(value)).toBe(host));

  it.each(['', ':80', 'a b', 'x'.repeat(254)])('refuses %j', (value) => expect(normalizeHost(value)).toBeUndefined());

  it('reads X-Forwarded-Host only behind trusted proxies, as the nearest trusted one wrote it', () => {
    const req = request({ Host: 'internal:3000', 'X-Forwarded-Host': 'forged.example, shop.example.com' });
    expect(requestHost(req, 0)).toBe('internal');
    expect(requestHost(req, 1)).toBe('shop.example.com');
    expect(requestHost(req, 2)).toBe('forged.example');
    expect(requestHost(request({ Host: 'shop.example.com' }), 1)).toBe('shop.example.com');
  });
});

describe('tenant-scoped keys and notifications', () => {
  it('splits a notification into its tenant and payload; one naming no tenant concerns all', () => {
    expect(splitTenantPayload('12/m:4,5')).toEqual({ tenant: '12', payload: 'm:4,5' });
    expect(splitTenantPayload('3/')).toEqual({ tenant: '3', payload: '' });
    expect(splitTenantPayload('*')).toEqual({ tenant: undefined, payload: '*' });
    expect(splitTenantPayload('/m:1')).toEqual({ tenant: undefined, payload: '/m:1' });
  });

  it('keys a cache entry by the tenant the code runs as', () => {
    expect(withTenant('7', () => tenantKey('product:1'))).toBe('7/product:1');
    expect(withTenant('8', () => tenantKey('product:1'))).not.toBe(withTenant('7', () => tenantKey('product:1')));
  });
});
