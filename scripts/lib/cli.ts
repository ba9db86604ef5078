import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../../src/config.ts';

/**
 * What the CLIs share: one error type carrying its exit code, argument parsing
 * that turns node:util's exceptions into usage errors, and a runner that prints
 * a failure as one clear line instead of a stack trace.
 */

/** Exit codes: 1 the operation failed, 2 the command line was wrong, 78 the environment was (EX_CONFIG). */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_CONFIG = 78;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT_USAGE);

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs in strict mode; unknown or malformed options become usage errors. */
export function parseCommandLine<O extends Options>(args: string[], options: O, maxPositionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: maxPositionals > 0 });
  } catch (err) {
    throw usageError((err as Error).message);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw usageError(`Unexpected argument '${parsed.positionals[maxPositionals]}'.`);
  }
  return parsed;
}

/**
 * A whole number written in plain digits (no sign, exponent or fraction, so
 * `1e4` or `10.5` are refused rather than silently read as something else).
 */
export function parseWholeNumber(name: string, raw: string | undefined, { min, max }: { min: number; max: number }) {
  if (raw === undefined) throw usageError(`${name} is required.`);
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
    throw usageError(`${name} must be a whole number ${range}, got '${raw}'.`);
  }
  return value;
}

/**
 * One line for an unexpected error. Node reports a refused connection to a host
 * with several addresses as an AggregateError with an empty message; its parts
 * say what happened.
 */
export function describeError(err: unknown): string {
  if (err instanceof AggregateError && !err.message) return err.errors.map(describeError).join('; ');
  if (err instanceof Error) return err.message || (err as { code?: string }).code || err.name;
  return String(err);
}

/** Runs a CLI's main: exit code from the result, or one line on stderr and the error's code. */
export function runCli(main: () => Promise<number | void>): void {
  main().then(
    (code) => {
      process.exitCode = code ?? 0;
    },
    (err: unknown) => {
      if (err instanceof CliError) {
        process.stderr.write(`Error: ${err.message}\n`);
        process.exitCode = err.exitCode;
      } else if (err instanceof ConfigError) {
        process.stderr.write(`${err.message}\n`);
        process.exitCode = EXIT_CONFIG;
      } else {
        process.stderr.write(`Error: ${describeError(err)}\n`);
        process.exitCode = EXIT_FAILURE;
      }
    },
  );
}

/** A plain text table with left-aligned columns, for listings read by people. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}
