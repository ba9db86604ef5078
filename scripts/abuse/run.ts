import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { parseCommandLine, parseWholeNumber, runCli, usageError, describeError } from '../lib/cli.ts';
import { entities } from './entities.ts';
import type { Finding, FindingContext } from './finding.ts';
import { graphiql } from './graphiql.ts';
import { loginContentType } from './login.ts';
import { COLUMNS, formatRow } from './measure.ts';
import { operationCache } from './operation-cache.ts';
import { serverErrors } from './server-errors.ts';
import { badCharacters } from './bad-characters.ts';
import { bigWrite } from './big-write.ts';
import { fairness } from './fairness.ts';
import { giantProduct } from './giant-product.ts';
import { slowReaders } from './slow-readers.ts';
import { smaller } from './small.ts';
import { tokenManagement } from './token-management.ts';
import { startOwnTarget, useRunningTarget, type Target } from './target.ts';
import { variableCost } from './variable-cost.ts';

/**
 * npm run abuse [-- --only 1,4] [--products N] [--url U --token T ...]: reproduces
 * the abuse findings of issue 11 against the real service and prints one Markdown
 * row per observation, so "before" and "after" come from the same command.
 */

const FINDINGS: Finding[] = [
  entities,
  variableCost,
  operationCache,
  serverErrors,
  loginContentType,
  graphiql,
  smaller,
  slowReaders,
  fairness,
  tokenManagement,
  giantProduct,
  bigWrite,
  badCharacters,
];

const USAGE = `npm run --silent abuse -- [options] > report.md

  --only 1,4            findings to run (default: all, ${FINDINGS.map((f) => f.number).join(',')})
  --products N          products to seed when fewer (default 10000); DATABASE_URL picks the
                        database (default postgres://postgres@127.0.0.1:5432/pcs_abuse, created when absent)
  --max-rss-mb N        kill the service started here past this RSS (default 12288)
  --url U --token T     run against an instance already running instead; optional:
    --token2 T2         a second user's token (finding 3; default T)
    --email E --password P   real credentials (finding 5; default a made-up user; finding 10
                             needs them, of an administrator as in issue 20)
    --federation-secret S    its FEDERATION_SECRET (finding 1's gateway requests)
    --pid P             its serving process, for the RSS columns (same machine only)
  Findings 12 and 13 write the catalogue: --token must then be an administrator's (catalog:write).
  Finding 11 inserts its giant product with SQL into DATABASE_URL: with --url, set it to that instance's database.
`;

const OPTIONS = {
  only: { type: 'string' },
  products: { type: 'string', default: '10000' },
  'max-rss-mb': { type: 'string', default: '12288' },
  url: { type: 'string' },
  token: { type: 'string' },
  token2: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  'federation-secret': { type: 'string' },
  pid: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

const log = (line: string) => process.stderr.write(`${line}\n`);

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src'], {
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} + uncommitted changes in src/` : head;
  } catch {
    return 'unknown';
  }
}

const withoutCredentials = (url: string) => url.replace(/\/\/[^@/]*@/, '//');

/** CPU, memory, kernel and Node, with the load average: other work on the machine shows in every number. */
function machine(): string {
  const cpus = os.cpus();
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const memory = `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`;
  const system = `${os.type()} ${os.release()}`;
  return `${cpus[0]?.model ?? 'cpu'}, ${cpus.length} cores, ${memory}, ${system}; Node ${process.version}; load average ${load}`;
}

async function main(): Promise<number> {
  const { values: opts } = parseCommandLine(process.argv.slice(2), OPTIONS);
  if (opts.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const products = parseWholeNumber('--products', opts.products, { min: 1, max: 1_000_000 });
  const maxRssMb = parseWholeNumber('--max-rss-mb', opts['max-rss-mb'], { min: 256, max: 1_000_000 });
  const only = opts.only?.split(',').map((n) => parseWholeNumber('--only', n, { min: 1, max: FINDINGS.length }));
  const chosen = FINDINGS.filter((f) => !only || only.includes(f.number));
  if (opts.url && !opts.token) throw usageError('--url needs --token.');
  if (!opts.url && (opts.token || opts.pid)) throw usageError('--token and --pid go with --url.');
  if ((opts.email === undefined) !== (opts.password === undefined))
    throw usageError('--email and --password go together.');

  let target: Target | undefined;
  let closing: Promise<void> | undefined;
  // The service must never outlive the run: errors, Ctrl-C and kill all end here.
  const close = () => (closing ??= target?.close() ?? Promise.resolve());
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping the service started by this run...`);
    void close().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // The reader of stdout went away (`| head`): nothing more to report.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => stop(`stdout: ${err.code ?? err.message}`));

  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/pcs_abuse';
  try {
    if (opts.url) {
      target = await useRunningTarget({
        url: opts.url,
        tokens: [opts.token!, opts.token2 ?? opts.token!],
        login: opts.email ? { email: opts.email, password: opts.password! } : undefined,
        federationSecret: opts['federation-secret'],
        pid: opts.pid === undefined ? undefined : parseWholeNumber('--pid', opts.pid, { min: 1, max: 2 ** 31 }),
        products,
      });
    } else {
      target = await startOwnTarget({ databaseUrl, products, log });
    }
    const inherited = target.inheritedSettings ?? [];
    const where = opts.url
      ? `${target.base} (already running${target.pid ? `, pid ${target.pid}` : ''})`
      : `the service started by this run (commit ${gitCommit()}, one worker, pid ${target.pid}) on ${withoutCredentials(databaseUrl)}`;
    process.stdout.write(
      `# Abuse findings (issue 11)\n\n` +
        `- Date: ${new Date().toISOString()}\n` +
        `- Machine: ${machine()}\n` +
        `- Target: ${where}; ${target.productIds.length} products used\n` +
        (inherited.length ? `- Service settings from this shell's environment: ${inherited.join(', ')}\n` : '') +
        `- Findings: ${chosen.map((f) => `${f.number} ${f.title}`).join('; ')}\n\n` +
        `| ${COLUMNS.map(([, title]) => title).join(' | ')} |\n|${COLUMNS.map(() => '---|').join('')}\n`,
    );
    const ctx: FindingContext = { target, maxRssMb, log, emit: (row) => process.stdout.write(`${formatRow(row)}\n`) };
    for (const finding of chosen) {
      log(`finding ${finding.number}: ${finding.title}`);
      try {
        await finding.run(ctx);
      } catch (err) {
        // One finding failing must not hide the others' numbers.
        const failed = { sent: '(the run failed)', status: '–', bytes: '–', ms: '–', notes: describeError(err) };
        ctx.emit({ finding: String(finding.number), ...failed });
      }
    }
    return 0;
  } finally {
    await close();
  }
}

runCli(main);
