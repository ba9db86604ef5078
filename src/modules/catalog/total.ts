import type { ChangeFeed } from '../../platform/notifications.ts';
import { movesMembership } from './changes.ts';

/**
 * The number of products, kept in memory between inserts and deletes: an unfiltered page's `total`
 * then costs no count. A count is kept only while the change notifications are up, and only if no
 * insert or delete was notified while it ran; without them every page that asks counts again.
 */
export interface ProductTotal {
  /** The count, when known. */
  known(): number | undefined;
  /** Before counting: the ticket `offer` checks. */
  ticket(): number;
  /** A count read by a statement that began after `ticket()`. */
  offer(ticket: number, total: number): void;
}

export function createProductTotal(feed: ChangeFeed | undefined, channel: string): ProductTotal {
  let step = 0;
  let total: number | undefined;
  const forget = () => {
    step++;
    total = undefined;
  };
  feed?.on(channel, (payload) => {
    if (movesMembership(payload)) forget();
  });
  feed?.onState(forget);
  return {
    known: () => (feed?.up ? total : undefined),
    ticket: () => step,
    offer(ticket, count) {
      if (feed?.up && ticket === step) total = count;
    },
  };
}
