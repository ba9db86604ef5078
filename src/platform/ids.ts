const MAX_INT8 = 9223372036854775807n;

/** The canonical text of a positive int8, or null: input no row can have never reaches a query. */
export function parseRowId(text: string): string | null {
  if (!/^[1-9][0-9]{0,18}$/.test(text)) return null;
  return BigInt(text) <= MAX_INT8 ? text : null;
}
