import { crc32 } from 'node:zlib';

/**
 * Cursor encoding. A cursor is base64url("<kind>:<id>:<crc32>") where id is the
 * last product id of a page (a keyset position, never an offset) and the crc32
 * covers "<kind>:<id>". Decoding accepts only the exact canonical form, so a
 * truncated, edited, foreign (another kind) or oversized cursor is refused
 * instead of silently restarting at page one.
 */

const MAX_BIGINT = 9223372036854775807n;
const MAX_CURSOR_LENGTH = 128;

function checksum(payload: string): string {
  return crc32(payload).toString(16).padStart(8, '0');
}

export function encodeCursor(kind: string, id: string): string {
  const payload = `${kind}:${id}`;
  return Buffer.from(`${payload}:${checksum(payload)}`, 'utf8').toString('base64url');
}

/** The id inside a cursor of this kind, or null when the cursor is not one we issued. */
export function decodeCursor(kind: string, cursor: string): string | null {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([a-z]+):([1-9][0-9]{0,18}):([0-9a-f]{8})$/.exec(text);
  if (!match || match[1] !== kind) return null;
  const id = match[2]!;
  if (BigInt(id) > MAX_BIGINT) return null;
  if (checksum(`${kind}:${id}`) !== match[3]) return null;
  // Canonical form only: other base64 spellings of the same bytes are not ours.
  return encodeCursor(kind, id) === cursor ? id : null;
}

export interface PaginatorInfo {
  count: number;
  currentPage: number;
  firstItem: number | null;
  hasMorePages: boolean;
  lastItem: number | null;
  lastPage: number;
  perPage: number;
  total: number;
  endCursor: string | null;
}

export function buildPaginatorInfo(args: {
  perPage: number;
  total: number;
  skipped: number;
  count: number;
  hasMorePages: boolean;
  endCursor: string | null;
}): PaginatorInfo {
  const { perPage, total, skipped, count } = args;
  return {
    count,
    // The page the returned records sit on: a page that starts mid-way (records
    // deleted before the cursor) still reports the page of its first record.
    currentPage: Math.floor(skipped / perPage) + 1,
    firstItem: count > 0 ? skipped + 1 : null,
    hasMorePages: args.hasMorePages,
    lastItem: count > 0 ? skipped + count : null,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
    perPage,
    total,
    endCursor: count > 0 ? args.endCursor : null,
  };
}
