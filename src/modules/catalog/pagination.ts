import { crc32 } from 'node:zlib';
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { parseRowId } from '../../platform/ids.ts';

// A cursor is base64url("<kind>:<id>:<crc32 of kind:id>"), id being a page's last product (a keyset position,
// never an offset). Only the canonical form decodes: an edited or foreign cursor is refused, not restarted at page one.
// A page with search, filter or another order has a keyset cursor (below): its sort key values too, and the query's binding.

const MAX_CURSOR_LENGTH = 128;
// Two names of 200 characters, each up to 4 UTF-8 bytes, in base64.
const MAX_KEYSET_CURSOR_LENGTH = 4096;

function checksum(payload: string): string {
  return crc32(payload).toString(16).padStart(8, '0');
}

export function encodeCursor(kind: string, id: string): string {
  const payload = `${kind}:${id}`;
  return Buffer.from(`${payload}:${checksum(payload)}`, 'utf8').toString('base64url');
}

export function decodeCursor(kind: string, cursor: string): string | null {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([a-z]+):([0-9]+):([0-9a-f]{8})$/.exec(text);
  if (!match || match[1] !== kind) return null;
  const id = parseRowId(match[2]!);
  if (id === null || checksum(`${kind}:${id}`) !== match[3]) return null;
  // Canonical form only: other base64 spellings of the same bytes are not ours.
  return encodeCursor(kind, id) === cursor ? id : null;
}

export interface KeysetPosition {
  /** The sort key values of the page's last row, as text, in the order's clause order. */
  values: string[];
  id: string;
}

/** base64url(JSON ["k", binding, values, id] + ":" + crc32): the position after a row, bound to one query. */
export function encodeKeysetCursor(binding: string, position: KeysetPosition): string {
  const payload = JSON.stringify(['k', binding, position.values, position.id]);
  return Buffer.from(`${payload}:${checksum(payload)}`, 'utf8').toString('base64url');
}

/** null unless the cursor is ours, unedited, for this binding, with `valueCount` values each passing `valid`. */
export function decodeKeysetCursor(
  binding: string,
  cursor: string,
  valueCount: number,
  valid: (index: number, value: string) => boolean,
): KeysetPosition | null {
  if (cursor.length === 0 || cursor.length > MAX_KEYSET_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const split = text.length - 9;
  if (split < 0 || text[split] !== ':' || checksum(text.slice(0, split)) !== text.slice(split + 1)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(text.slice(0, split));
  } catch {
    return null;
  }
  if (!Array.isArray(decoded) || decoded.length !== 4 || decoded[0] !== 'k' || decoded[1] !== binding) return null;
  const [, , values, id] = decoded as unknown[];
  if (!Array.isArray(values) || values.length !== valueCount || typeof id !== 'string') return null;
  if (!values.every((v, i) => typeof v === 'string' && !v.includes('\0') && valid(i, v))) return null;
  const rowId = parseRowId(id);
  if (rowId === null) return null;
  const position = { values: values as string[], id: rowId };
  return encodeKeysetCursor(binding, position) === cursor ? position : null;
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

/** PaginatorInfo fields that need the number of matches, and those that need the page's position. */
const TOTAL_FIELDS = new Set(['lastPage', 'total']);
const POSITION_FIELDS = new Set(['currentPage', 'firstItem', 'lastItem']);

export interface PaginatorCounts {
  total: boolean;
  position: boolean;
}

/** Looks through fragments; directives are ignored: a field under @skip only costs the counts. */
export function selectedPaginatorCounts(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): PaginatorCounts {
  const any = (
    set: SelectionSetNode | undefined,
    test: (name: string, sub: SelectionSetNode | undefined) => boolean,
  ): boolean =>
    (set?.selections ?? []).some((s) => {
      if (s.kind === Kind.FIELD) return test(s.name.value, s.selectionSet);
      if (s.kind === Kind.INLINE_FRAGMENT) return any(s.selectionSet, test);
      const fragment = info.fragments[s.name.value];
      return fragment ? any(fragment.selectionSet, test) : true;
    });
  const selects = (fields: Set<string>) =>
    info.fieldNodes.some((node) =>
      any(node.selectionSet, (name, sub) => name === 'paginatorInfo' && any(sub, (field) => fields.has(field))),
    );
  return { total: selects(TOTAL_FIELDS), position: selects(POSITION_FIELDS) };
}

export function buildPaginatorInfo(args: {
  perPage: number;
  /** null when not fetched (no selected field needs it). */
  total: number | null;
  /** Matches before the page; null when not fetched. */
  skipped: number | null;
  count: number;
  hasMorePages: boolean;
  endCursor: string | null;
}): PaginatorInfo {
  const { perPage, total, skipped, count } = args;
  const uncounted = {
    count,
    hasMorePages: args.hasMorePages,
    perPage,
    endCursor: count > 0 ? args.endCursor : null,
  };
  // Reading a count that was not fetched is a bug to surface, never a silent 0.
  const missing = (): never => {
    throw new Error('PaginatorInfo counts were read but not fetched');
  };
  const fields = {
    ...uncounted,
    // A page starting mid-way (rows deleted before the cursor) reports the page of its first record.
    ...(skipped === null
      ? {}
      : {
          currentPage: Math.floor(skipped / perPage) + 1,
          firstItem: count > 0 ? skipped + 1 : null,
          lastItem: count > 0 ? skipped + count : null,
        }),
    ...(total === null ? {} : { lastPage: Math.max(1, Math.ceil(total / perPage)), total }),
  };
  const unfetched = [...(skipped === null ? POSITION_FIELDS : []), ...(total === null ? TOTAL_FIELDS : [])];
  return Object.defineProperties(
    fields,
    Object.fromEntries(unfetched.map((f) => [f, { get: missing, enumerable: true }])),
  ) as PaginatorInfo;
}
