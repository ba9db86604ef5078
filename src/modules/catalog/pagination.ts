import { crc32 } from 'node:zlib';
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { parseRowId } from '../../platform/ids.ts';

// A cursor is base64url("<kind>:<id>:<crc32 of kind:id>"), id being a page's last product (a keyset position,
// never an offset). Only the canonical form decodes: an edited or foreign cursor is refused, not restarted at page one.

const MAX_CURSOR_LENGTH = 128;

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

/** PaginatorInfo fields that need the counts over the whole table. */
const COUNTED_FIELDS = new Set(['currentPage', 'firstItem', 'lastItem', 'lastPage', 'total']);

/** Looks through fragments; directives are ignored: a field under @skip only costs the counts. */
export function selectsPaginatorCounts(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): boolean {
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
  return info.fieldNodes.some((node) =>
    any(node.selectionSet, (name, sub) => name === 'paginatorInfo' && any(sub, (field) => COUNTED_FIELDS.has(field))),
  );
}

export function buildPaginatorInfo(args: {
  perPage: number;
  /** null when the counts were not fetched (no selected field needs them). */
  total: number | null;
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
  if (total === null || skipped === null) {
    // Reading a count that was not fetched is a bug to surface, never a silent 0.
    const missing = (): never => {
      throw new Error('PaginatorInfo counts were read but not fetched');
    };
    return Object.defineProperties(
      uncounted,
      Object.fromEntries([...COUNTED_FIELDS].map((f) => [f, { get: missing, enumerable: true }])),
    ) as PaginatorInfo;
  }
  return {
    ...uncounted,
    // A page starting mid-way (rows deleted before the cursor) reports the page of its first record.
    currentPage: Math.floor(skipped / perPage) + 1,
    firstItem: count > 0 ? skipped + 1 : null,
    lastItem: count > 0 ? skipped + count : null,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
    total,
  };
}
