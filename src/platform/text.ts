// Text that round-trips: what a client sends is what is stored and read back.
// PostgreSQL text cannot hold NUL (an error, a 500 before this); UTF-8 cannot encode a lone surrogate
// (the driver writes U+FFFD instead, so the stored value differs from the sent one); the Unicode
// non-characters (U+FDD0–U+FDEF, U+xFFFE, U+xFFFF) are for a process's internal use, never for interchange.

/** In unicode mode a paired surrogate is one code point: \p{Cs} matches only a lone one. */
const FORBIDDEN = /[\0\p{Cs}\p{Noncharacter_Code_Point}]/u;

/** Whitespace, format characters (U+200B, U+FEFF, bidi marks…), controls and other default-ignorable ones. */
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]*$/u;

/** One linear pass. */
export function hasForbiddenText(value: string): boolean {
  return FORBIDDEN.test(value);
}

/** Nothing a reader would see: a name like this is as good as empty. */
export function isInvisibleText(value: string): boolean {
  return INVISIBLE_ONLY.test(value);
}

/** Laravel-style: the attribute is the last word of the path (`input.steps.0.name` → name). */
export function forbiddenTextMessage(attribute: string): string {
  return `The ${attribute} field must not contain NUL bytes, unpaired surrogates or Unicode non-characters.`;
}

interface Visit {
  value: unknown;
  key: string | undefined;
  parent: Visit | undefined;
}

function pathOf(visit: Visit, last?: string): string[] {
  const path = last === undefined ? [] : [last];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) path.push(v.key);
  return path.reverse();
}

/**
 * Every string in a parsed JSON value (member names included) holding a forbidden character, by path
 * (`['steps', '0', 'name']`); at most `max`. Iterative, one pass; a path is only built for a finding.
 */
export function findForbiddenText(value: unknown, max = 100): string[][] {
  const found: string[][] = [];
  const stack: Visit[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0 && found.length < max) {
    const visit = stack.pop()!;
    const v = visit.value;
    if (typeof v === 'string') {
      if (FORBIDDEN.test(v)) found.push(pathOf(visit));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: String(i), parent: visit });
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        if (FORBIDDEN.test(k)) found.push(pathOf(visit, k));
        stack.push({ value: (v as Record<string, unknown>)[k], key: k, parent: visit });
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
