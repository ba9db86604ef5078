import { describe, expect, it } from 'vitest';
import { buildPaginatorInfo, decodeCursor, encodeCursor } from '../../src/modules/catalog/pagination.ts';

describe('cursors', () => {
  it('round-trip an id and are opaque url-safe text', () => {
    const cursor = encodeCursor('product', '42');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('42');
    expect(decodeCursor('product', cursor)).toBe('42');
    expect(decodeCursor('product', encodeCursor('product', '9223372036854775807'))).toBe('9223372036854775807');
  });

  it('refuse another kind, a bad checksum, a non-canonical spelling and ids out of range', () => {
    expect(decodeCursor('product', encodeCursor('user', '42'))).toBeNull();
    const payload = 'product:42:00000000';
    expect(decodeCursor('product', Buffer.from(payload).toString('base64url'))).toBeNull();
    expect(decodeCursor('product', `${encodeCursor('product', '42')}=`)).toBeNull();
    expect(decodeCursor('product', encodeCursor('product', '9223372036854775808'))).toBeNull();
    expect(decodeCursor('product', encodeCursor('product', '0'))).toBeNull();
    expect(decodeCursor('product', '')).toBeNull();
    expect(decodeCursor('product', 'x'.repeat(200))).toBeNull();
  });
});

describe('buildPaginatorInfo', () => {
  it('computes Lighthouse fields from the offset of the page', () => {
    expect(
      buildPaginatorInfo({ perPage: 20, total: 45, skipped: 40, count: 5, hasMorePages: false, endCursor: 'c' }),
    ).toEqual({
      count: 5,
      currentPage: 3,
      firstItem: 41,
      hasMorePages: false,
      lastItem: 45,
      lastPage: 3,
      perPage: 20,
      total: 45,
      endCursor: 'c',
    });
  });

  it('keeps lastPage at least 1 and nulls the item positions and cursor on an empty page', () => {
    expect(
      buildPaginatorInfo({ perPage: 10, total: 0, skipped: 0, count: 0, hasMorePages: false, endCursor: 'x' }),
    ).toMatchObject({
      lastPage: 1,
      currentPage: 1,
      firstItem: null,
      lastItem: null,
      endCursor: null,
    });
  });
});
