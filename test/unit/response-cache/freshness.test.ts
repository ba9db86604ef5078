import { describe, expect, it } from 'vitest';
import { createFreshnessGuard } from '../../../src/graphql/response-cache/freshness.ts';

describe('the freshness guard', () => {
  it('keeps an answer nothing it read changed under, once', () => {
    const guard = createFreshnessGuard({ maxKeys: 10 });
    guard.began('k');
    guard.changed(['product:2']);
    expect(guard.fresh('k', ['product:1'])).toBe(true);
    expect(guard.fresh('k', ['product:1'])).toBe(false);
  });

  it('refuses an answer computed across a change to what it read, or to everything', () => {
    const guard = createFreshnessGuard({ maxKeys: 10 });
    guard.began('page');
    guard.changed(['product:3']);
    expect(guard.fresh('page', ['product:3', 'products'])).toBe(false);
    guard.began('other');
    guard.changedEverything();
    expect(guard.fresh('other', [])).toBe(false);
  });

  it('keeps the older note of two misses on one key: concurrent executions err towards not caching', () => {
    const guard = createFreshnessGuard({ maxKeys: 10 });
    guard.began('k');
    guard.changed(['t']);
    guard.began('k');
    expect(guard.fresh('k', ['t'])).toBe(false);
  });

  it('counts a tag it no longer remembers as changed just now', () => {
    const guard = createFreshnessGuard({ maxKeys: 10, maxTags: 1 });
    guard.began('k');
    guard.changed(['a']);
    guard.changed(['b']);
    expect(guard.fresh('k', ['c'])).toBe(false);
  });
});
