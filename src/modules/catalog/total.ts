import type { ChangeFeed } from '../../platform/notifications.ts';
import { currentTenant, splitTenantPayload } from '../../platform/tenancy.ts';
import { movesMembership } from './changes.ts';

/**
 * The number of products of each tenant, kept in memory between inserts and deletes: an unfiltered
 * page's `total` then costs no count. A count is kept only while the change notifications are up, and
 * only if no insert or delete was notified in its tenant while it ran; without them every page counts.
 */
export interface ProductTotal {
  /** The current tenant's count, when known. */
  known(): number | undefined;
  /** Before counting: the ticket `offer` checks. */
  ticket(): number;
  /** A count read by a statement that began after `ticket()`. */
  offer(ticket: number, total: number): void;
}

/** Counts kept at most: beyond it the oldest tenant's is counted again when next asked. */
const MAX_TENANTS = 10_000;

export function createProductTotal(feed: ChangeFeed | undefined, channel: string): ProductTotal {
  // A step per tenant, and one for everything; a ticket is both, so either moving voids it.
  let everything = 0;
  const steps = new Map<string, number>();
  const totals = new Map<string, number>();
  const tenant = () => currentTenant() ?? '';
  const stepOf = (t: string) => everything * 2 ** 26 + (steps.get(t) ?? 0);
  const forgetAll = () => {
    everything++;
    steps.clear();
    totals.clear();
  };
  feed?.on(channel, (raw) => {
    const { tenant: t, payload } = splitTenantPayload(raw);
    if (t === undefined) return forgetAll();
    if (!movesMembership(payload)) return;
    steps.set(t, (steps.get(t) ?? 0) + 1);
    totals.delete(t);
  });
  feed?.onState(forgetAll);
  return {
    known: () => (feed?.up ? totals.get(tenant()) : undefined),
    ticket: () => stepOf(tenant()),
    offer(ticket, count) {
      const t = tenant();
      if (!feed?.up || ticket !== stepOf(t)) return;
      if (totals.size >= MAX_TENANTS) totals.delete(totals.keys().next().value!);
      totals.set(t, count);
    },
  };
}
