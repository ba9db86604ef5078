import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attributeOf, findForbiddenText, hasForbiddenText, isInvisibleText } from '../../src/platform/text.ts';

describe('text that round-trips', () => {
  it('refuses NUL, lone surrogates and every non-character; accepts surrogate pairs', () => {
    for (const bad of ['\0', '\ud800', 'x\udfff', '\ufdd0', '\ufdef', '\ufffe', '\uffff', '\u{1fffe}', '\u{10ffff}']) {
      expect(hasForbiddenText(`a${bad}b`), JSON.stringify(bad)).toBe(true);
    }
    for (const good of ['', 'plain', 'Zoë 橡木', '🪵', '\u{1fffd}', '\ufdcf\ufdf0\ufffd', '\t\n']) {
      expect(hasForbiddenText(good), JSON.stringify(good)).toBe(false);
    }
  });

  it('agrees with UTF-8: a string without forbidden text encodes and decodes to itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const roundTrips = Buffer.from(s, 'utf8').toString('utf8') === s && !s.includes('\0');
        if (!hasForbiddenText(s)) expect(roundTrips).toBe(true);
      }),
    );
  });

  it('calls invisible-only text empty', () => {
    for (const s of ['', ' ', '\u200b', '\ufeff\u200d', '\u2060 \u180e', '\u3164'])
      expect(isInvisibleText(s), JSON.stringify(s)).toBe(true);
    for (const s of ['a', '\u200ba', '.', '🪵']) expect(isInvisibleText(s), JSON.stringify(s)).toBe(false);
  });

  it('finds every bad string of a JSON value by path, member names included', () => {
    const value = { a: ['ok', 'x\0'], b: { c: '\ud800', 'k\uffff': 1 }, d: 3 };
    expect(
      findForbiddenText(value)
        .map((p) => p.join('.'))
        .sort(),
    ).toEqual(['a.1', 'b.c', 'b.k\uffff']);
    expect(findForbiddenText(value, 1)).toHaveLength(1);
    expect(attributeOf(['input', 'steps', '0', 'name'])).toBe('name');
    expect(attributeOf(['expires_at'])).toBe('expires at');
  });
});

describe('findForbiddenText on deep values', () => {
  it('walks nesting far beyond the stack, with the right path', () => {
    let deep: unknown = 'x\0';
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
    const [path] = findForbiddenText({ top: deep });
    expect(path).toHaveLength(100_001);
    expect(path!.slice(0, 3)).toEqual(['top', '0', 'k']);
    expect(path!.at(-1)).toBe('k');
  });
});
