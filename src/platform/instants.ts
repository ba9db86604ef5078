// The instants a client may send (a filter, a cursor's sort key, expectedUpdatedAt, a token's expiry): those
// PostgreSQL stores and the service writes back as it read them, RFC 3339 in UTC with a four-digit year.
// JavaScript dates reach year 275760 either way and RFC 3339 text with an offset years -1 to 10000, while
// PostgreSQL reads no year 0000 (its calendar goes from 1 BC to AD 1) and an ISO string of a year beyond 9999
// is not RFC 3339: years 1 to 9999 in UTC is where all of them agree.

import { sql, type RawBuilder } from 'kysely';

export const EARLIEST_INSTANT = '0001-01-01T00:00:00.000Z';
export const LATEST_INSTANT = '9999-12-31T23:59:59.999Z';

const EARLIEST_MS = Date.parse(EARLIEST_INSTANT);
const LATEST_MS = Date.parse(LATEST_INSTANT);

/** Whether an instant is one the service stores and answers unchanged; an invalid Date never is. */
export function isStorableInstant(date: Date): boolean {
  const ms = date.getTime();
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
}

/**
 * A stored instant as epoch milliseconds, in SQL. date_part gives float8 seconds (extract gives numeric, about
 * six times the CPU per value); rounded after scaling it is the exact millisecond for every storable instant.
 */
export const epochMs = (column: string): RawBuilder<number> =>
  sql<number>`round(date_part('epoch', ${sql.ref(column)}) * 1000)`;
