import { describe, expect, it } from 'vitest';
import { createAdmission, type Occupancy } from '../../../src/graphql/response-cache/admission.ts';

/** A store of `maxBytes` holding `held` bytes per token. */
function occupancy(maxBytes: number, held: Record<string, number>): Occupancy {
  const bytes = Object.values(held).reduce((a, b) => a + b, 0);
  return { bytes, bytesOf: (owner) => held[owner] ?? 0, hasRoomFor: (n) => bytes + n <= maxBytes };
}

const admission = () => createAdmission({ maxBytes: 1_000, maxAnswerBytes: 100, maxTokenShare: 0.25, maxKeys: 100 });

describe('admission', () => {
  it('never keeps an answer over its own bound, even into free room', () => {
    expect(admission().refusal('k', 101, 'a', occupancy(1_000, {}))).toBe('too-large');
    expect(admission().refusal('k', 100, 'a', occupancy(1_000, {}))).toBeUndefined();
  });

  it('fills free room at once; once full, keeps only what was asked for again', () => {
    const a = admission();
    const full = occupancy(1_000, { reader: 1_000 });
    a.sighted('k');
    expect(a.refusal('k', 50, 'other', full)).toBe('not-asked-again');
    a.sighted('k');
    expect(a.refusal('k', 50, 'other', full)).toBeUndefined();
  });

  it('bounds a token’s share once its answers would evict others’', () => {
    const a = admission();
    a.sighted('k');
    a.sighted('k');
    expect(a.refusal('k', 100, 'flood', occupancy(1_000, { reader: 800, flood: 200 }))).toBe('over-share');
    expect(a.refusal('k', 50, 'flood', occupancy(1_000, { reader: 800, flood: 200 }))).toBeUndefined();
  });

  it('does not bind a token alone in the cache: one hot reader keeps its whole working set', () => {
    const a = admission();
    a.sighted('k');
    a.sighted('k');
    expect(a.refusal('k', 100, 'reader', occupancy(1_000, { reader: 1_000 }))).toBeUndefined();
  });
});
