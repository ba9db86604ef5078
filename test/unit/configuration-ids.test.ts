import { describe, expect, it } from 'vitest';
import { isConfigurationId, newConfigurationId } from '../../src/modules/configurations/ids.ts';

describe('configuration ids', () => {
  it('are 12 characters of [A-Za-z0-9], all distinct, every character in use', () => {
    const ids = Array.from({ length: 20_000 }, newConfigurationId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const c of ids.join('')) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 240,000 characters over 62: about 3871 each (σ ≈ 62). A plain byte % 62 would give the first 8
    // characters 5/256 instead of 4/256 (about 4700 each): 400 is far outside chance, inside that bias.
    for (const n of counts.values()) expect(Math.abs(n - 240_000 / 62)).toBeLessThan(400);
  });

  it('recognises only what could be an id', () => {
    expect(isConfigurationId('abcDEF012345')).toBe(true);
    for (const bad of ['abcDEF01234', 'abcDEF0123456', 'abcDEF01234-', 'abcDEF01234Ä', ''])
      expect(isConfigurationId(bad), bad).toBe(false);
  });
});
