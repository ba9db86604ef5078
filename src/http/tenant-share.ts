import type { ServerResponse } from 'node:http';
import { HttpError } from '../platform/errors.ts';

/** What a request beyond its company's share answers; REST and GraphQL each word it in their own shape. */
export const tenantShareExceeded = () =>
  new HttpError(429, 'Too many requests in flight for this tenant (GRAPHQL_MAX_IN_FLIGHT_PER_TENANT).', {
    headers: { 'Retry-After': '1' },
  });

export interface TenantShare {
  /**
   * Counts the request against its tenant until its response is handed to the connection or the
   * connection closes; false, counting nothing, when the tenant already has `limit` in flight.
   */
  admit(tenantId: string, res: ServerResponse): boolean;
  inFlight(tenantId: string): number;
}

/**
 * One customer company's share of this process: its storm holds at most `limit` requests (and so pooled
 * connections, event-loop turns, buffered answers) while the other companies are served. 0: no bound.
 */
export function createTenantShare(limit: number): TenantShare {
  const counts = new Map<string, number>();
  return {
    admit(tenantId, res) {
      if (limit === 0) return true;
      const held = counts.get(tenantId) ?? 0;
      if (held >= limit) return false;
      // Closed while the tenant was resolved: its 'close' has been and gone, so nothing would give a slot back.
      if (res.destroyed || res.writableFinished) return true;
      counts.set(tenantId, held + 1);
      let released = false;
      // 'finish' comes first for an answer sent whole, 'close' alone for one cut off: whichever, once.
      const release = () => {
        if (released) return;
        released = true;
        res.off('finish', release);
        res.off('close', release);
        const left = (counts.get(tenantId) ?? 1) - 1;
        if (left === 0) counts.delete(tenantId);
        else counts.set(tenantId, left);
      };
      res.once('finish', release);
      res.once('close', release);
      return true;
    },
    inFlight: (tenantId) => counts.get(tenantId) ?? 0,
  };
}
