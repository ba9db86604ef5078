// The one place that tells "the database is away" (503, retry) from a bug (500); wrapper chains are walked.

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Besides class 08: shutdown and start-up, query_canceled (our statement_timeout), too_many_connections, 25P03. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53300', '25P03']);

// pg and pg-pool raise these as plain Errors without a code.
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^Client has encountered a connection error and is not queryable/,
  /^Connection ended/,
  /^Cannot use a pool after calling end on the pool/,
];

function links(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = err;
  while (current && typeof current === 'object' && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    const e = current as { cause?: unknown; originalError?: unknown; errors?: unknown[] };
    // AggregateError (a dual-stack connect that failed on every address) carries the reasons in `errors`.
    if (Array.isArray(e.errors) && e.errors.length > 0) chain.push(...e.errors);
    current = e.originalError ?? e.cause;
  }
  return chain;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  return links(err).some((link) => {
    if (!link || typeof link !== 'object') return false;
    const { code, message } = link as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
      if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(message));
  });
}

export const SERVICE_UNAVAILABLE_MESSAGE = 'Service temporarily unavailable.';
