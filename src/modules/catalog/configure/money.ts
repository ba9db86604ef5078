// Money is integer minor units (cents) inside and a decimal string at the edge: never a float sum.
// Amounts come from PostgreSQL already in cents (catalog/repository.ts); every one fits numeric(12,2)
// (at most 999,999,999,999 cents), so a total of a thousand of them stays below 2^53, where adding
// whole numbers is exact.

/** The largest amount numeric(12,2) holds, in cents. */
export const MAX_AMOUNT_CENTS = 999_999_999_999;

const DECIMAL = /^(\d{1,10})(?:\.(\d{1,2}))?$/;

/** "12.3" → 1230. Refuses anything numeric(12,2) could not hold exactly (signs, exponents, 3 decimals). */
export function parseCents(text: string): number {
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`Not a decimal amount with at most two decimals: ${JSON.stringify(text)}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** 123450 → "1234.50": always two decimals, from digits, never a division. */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`Not a whole number of cents: ${cents}`);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * `start` plus every amount, all whole cents. Refuses a fraction of a cent (a float that slipped in) and a
 * total past 2^53, where a sum would stop being exact, rather than answer a price that is almost right.
 */
export function sumCents(start: number, amounts: readonly number[]): number {
  let total = wholeCents(start);
  for (const amount of amounts) total += wholeCents(amount);
  if (!Number.isSafeInteger(total)) throw new RangeError(`A total past ${Number.MAX_SAFE_INTEGER} cents`);
  return total;
}

function wholeCents(amount: number): number {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`Not a whole number of cents: ${amount}`);
  return amount;
}
