import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NEEDS_POSTGRES = /skipIf\(!(process\.env\.DATABASE_URL|onPostgres)\)/;

/**
 * One line for the end of a run that skipped tests for want of something on this machine, saying what and how
 * to include them; undefined when nothing was skipped for that reason. (Issue 30 item 8: `npm test` skipped
 * files without a word.)
 */
export function skippedNotice(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const reasons: string[] = [];
  if (!env.DATABASE_URL) {
    const files = readdirSync(`${ROOT}test/integration`)
      .filter((f) => f.endsWith('.test.ts'))
      .filter((f) => NEEDS_POSTGRES.test(readFileSync(`${ROOT}test/integration/${f}`, 'utf8')))
      .map((f) => f.replace(/\.test\.ts$/, ''));
    if (files.length > 0)
      reasons.push(`tests that need PostgreSQL in ${files.join(', ')} (set DATABASE_URL to run them)`);
  }
  if (!existsSync(`${ROOT}test/gateway/node_modules`))
    reasons.push('gateway (run `npm ci --prefix test/gateway`, or `npm test`, which installs it)');
  return reasons.length > 0 ? `Skipped on this machine: ${reasons.join('; ')}.` : undefined;
}
