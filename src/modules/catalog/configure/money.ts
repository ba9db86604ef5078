// Money is integer minor units (cents) inside and a decimal string at the edge: never a float sum.
// Every amount here fits numeric(12,2) (at most 999,999,999,999 cents); a total of a thousand of
// them stays below 2^53, so plain numbers add exactly.

const DECIMAL = /^(\d{1,10})(?:\.(\d{1,2}))?$/;

/** "12.3" → 1230. Refuses anything numeric(12,2) could not hold exactly (signs, exponents, 3 decimals). */
export function parseCents(text: string): number {
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`Not a decimal amount with at most two decimals: ${JSON.stringify(text)}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** A numeric(12,2) value read as float8 (exact: its shortest text reads back as the stored value). */
export function centsFromFloat(value: number): number {
  return parseCents(value.toFixed(2));
}

/** 123450 → "1234.50": always two decimals. */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`Not a whole number of cents: ${cents}`);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
