import type { Selection } from './tree.ts';

/** More is refused as bad input before evaluation. */
export const MAX_SELECTIONS = 1000;

// NUL, an unpaired surrogate, or a Unicode non-character: text no customer means, and that jsonb refuses.
const UNSTORABLE =
  // eslint-disable-next-line no-control-regex -- NUL is the point of this pattern
  /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uFDD0-\uFDEF\uFFFE\uFFFF]/u;

/**
 * What makes a selection input unusable rather than merely invalid (bad input, not a violation):
 * more than MAX_SELECTIONS choices, or a value holding characters that are not text. Messages by
 * argument path, as the catalogue writes report them; null when there is nothing to say.
 */
export function selectionInputErrors(selections: readonly Selection[]): Record<string, string[]> | null {
  if (selections.length > MAX_SELECTIONS) {
    return { selections: [`At most ${MAX_SELECTIONS} selections are allowed, got ${selections.length}.`] };
  }
  const errors: Record<string, string[]> = {};
  selections.forEach((s, i) => {
    if (typeof s.value === 'string' && UNSTORABLE.test(s.value)) {
      errors[`selections.${i}.value`] = [
        'The value must not contain NUL bytes, unpaired surrogates or non-characters.',
      ];
    }
  });
  return Object.keys(errors).length ? errors : null;
}
