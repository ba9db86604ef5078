import { spawn } from 'node:child_process';
import { parseCommandLine, runCli, usageError } from './lib/cli.ts';
import { startPgBouncer } from './lib/pgbouncer.ts';

// node --import tsx scripts/pgbouncer.ts [--user ROLE]... POSTGRES_URL [-- COMMAND [ARG...]]
// Starts a throwaway PgBouncer in transaction mode in front of POSTGRES_URL's server and prints the URL
// through it. With a command: runs it with DATABASE_URL set to that URL, stops the bouncer, and exits with
// the command's status (what .ci/run does). Without one: serves until Ctrl-C.

runCli(async () => {
  const dashes = process.argv.indexOf('--', 2);
  const ours = dashes === -1 ? process.argv.slice(2) : process.argv.slice(2, dashes);
  const command = dashes === -1 ? [] : process.argv.slice(dashes + 1);
  const { values, positionals } = parseCommandLine(ours, { user: { type: 'string', multiple: true } }, 1);
  const direct = positionals[0];
  if (!direct || !/^postgres(ql)?:\/\//.test(direct)) throw usageError('Give the PostgreSQL URL to stand in front of.');
  const upstream = new URL(direct);
  const bouncer = await startPgBouncer({
    upstreamHost: upstream.hostname || '127.0.0.1',
    upstreamPort: Number(upstream.port || 5432),
    // The URL's own user, and any role a client will log in as (the test suite's service role).
    users: [...new Set([decodeURIComponent(upstream.username) || 'postgres', ...(values.user ?? [])])],
  });
  const url = bouncer.through(direct);
  process.stdout.write(`PgBouncer (transaction mode) on ${bouncer.host}:${bouncer.port}: ${url}\n`);
  try {
    if (command.length === 0) {
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      return 0;
    }
    const child = spawn(command[0]!, command.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: url },
    });
    const code = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (status, signal) => resolve(status ?? (signal ? 128 : 1)));
    });
    if (code !== 0) process.stderr.write(`PgBouncer's log:\n${bouncer.log().split('\n').slice(-40).join('\n')}\n`);
    return code;
  } finally {
    await bouncer.stop();
  }
});
