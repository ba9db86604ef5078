import { describe, expect, it } from 'vitest';
import { safeEqual } from '../../src/platform/secrets.ts';

describe('safeEqual', () => {
  it('is true only for the same string', () => {
    expect(safeEqual('s3cret', 's3cret')).toBe(true);
    expect(safeEqual('s3cret', 's3creT')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });

  it('compares strings of different lengths without throwing', () => {
    expect(safeEqual('s3cre', 's3cret')).toBe(false);
    expect(safeEqual('', 's3cret')).toBe(false);
    expect(safeEqual('x'.repeat(10_000), 'x')).toBe(false);
  });

  it('compares text, not bytes of some other encoding', () => {
    expect(safeEqual('café', 'café')).toBe(true);
    expect(safeEqual('café', 'cafe\u0301')).toBe(false);
  });
});
