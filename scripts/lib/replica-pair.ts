import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './service-process.ts';

/**
 * A throwaway PostgreSQL primary and hot standby for tests and benchmarks, built with PostgreSQL's own tools
 * (initdb, pg_basebackup, pg_ctl) in a temporary directory, on ports of their own: the system's cluster is
 * left alone. initdb and postgres refuse to run as root, so as root they run as the `postgres` OS user.
 */

export interface ReplicaPair {
  primaryPort: number;
  standbyPort: number;
  /** postgres://<user>@127.0.0.1:<port>/<db> */
  primaryUrl(db?: string, user?: string): string;
  standbyUrl(db?: string, user?: string): string;
  /** Creates a database (optionally owned by `owner`, a NOSUPERUSER NOBYPASSRLS LOGIN role created if missing) on the primary and waits until the standby can connect to it. */
  createDatabase(name: string, options?: { owner?: string }): Promise<void>;
  /** Waits until the standby has replayed everything the primary had written when called. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  /** Stops applying WAL on the standby (it still receives it); returns once no further record will be applied. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** pg_ctl stop -m <mode>: `immediate` is a crash, with recovery at the next start. */
  stopStandby(mode: 'immediate' | 'fast'): Promise<void>;
  /** pg_ctl start; resolves once the standby accepts connections. */
  startStandby(): Promise<void>;
  /** Stops both servers and removes the temporary directory. Safe to call twice. */
  stop(): Promise<void>;
}

const TOOLS = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'];
const SLOT = 'replica_pair_standby';

let binDirFound: string | null | undefined;
/** pg_config's bindir, else the newest /usr/lib/postgresql/<version>/bin (Debian's layout) holding every tool. */
function binDir(): string | null {
  if (binDirFound !== undefined) return binDirFound;
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: 'pipe' }).trim());
  } catch {
    // No pg_config on PATH (it comes with libpq-dev on Debian): look where the server packages install.
  }
  try {
    const versions = fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    // No Debian-style installation.
  }
  binDirFound = candidates.find((dir) => TOOLS.every((tool) => fs.existsSync(path.join(dir, tool)))) ?? null;
  return binDirFound;
}

const isRoot = () => process.getuid?.() === 0;
const runuser = () => RUNUSER.find((p) => fs.existsSync(p));

function postgresUser(): { uid: number; gid: number } | null {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }));
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return null;
  }
}

/**
 * Whether this machine can start a pair: the server's binaries are installed, and either this process is root
 * (the servers then run as the `postgres` OS user, through runuser) or it is not (they run as this user, as
 * they would as `postgres`).
 */
export function replicaPairSupport(): { ok: true } | { ok: false; reason: string } {
  if (!binDir())
    return {
      ok: false,
      reason: `no PostgreSQL server binaries (${TOOLS.join(', ')}) in pg_config --bindir or /usr/lib/postgresql/*/bin`,
    };
  if (isRoot()) {
    if (!runuser()) return { ok: false, reason: 'running as root, and runuser (util-linux) is not installed' };
    if (!postgresUser())
      return { ok: false, reason: 'running as root, and there is no postgres OS user to run the servers as' };
  }
  return { ok: true };
}

/** The last lines of a server's log, for an error that says why it did not start or stop. */
function logTail(file: string, lines = 30): string {
  try {
    const text = fs.readFileSync(file, 'utf8').trimEnd();
    return text ? `\n--- last lines of ${file}:\n${text.split('\n').slice(-lines).join('\n')}` : '';
  } catch {
    return '';
  }
}

/** The PostgreSQL tool and its arguments as spawned: through runuser when root. */
function command(tool: string, args: string[]): [string, string[]] {
  const file = path.join(binDir()!, tool);
  return isRoot() ? [runuser()!, ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

/** This environment without libpq's PG* variables, which would otherwise point the tools at another server. */
function toolEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PG')));
}

interface Layout {
  dir: string;
  primary: string;
  standby: string;
  primaryLog: string;
  standbyLog: string;
}

/** Pairs not yet stopped: a run that exits without stop() (a crash, a failed test) must leave no servers behind. */
const live = new Set<Layout>();
let exitHookInstalled = false;

function stopAllSync(): void {
  for (const layout of live) {
    for (const dataDir of [layout.standby, layout.primary]) {
      if (!fs.existsSync(path.join(dataDir, 'postmaster.pid'))) continue;
      const [file, args] = command('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
      spawnSync(file, args, { cwd: layout.dir, env: toolEnv(), stdio: 'ignore', timeout: 10_000 });
    }
    fs.rmSync(layout.dir, { recursive: true, force: true });
  }
  live.clear();
}

export async function startReplicaPair(options: { settings?: Record<string, string> } = {}): Promise<ReplicaPair> {
  const support = replicaPairSupport();
  if (!support.ok) throw new Error(`Cannot start a replica pair: ${support.reason}`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-pair-'));
  if (isRoot()) {
    const { uid, gid } = postgresUser()!;
    fs.chownSync(dir, uid, gid);
  }
  const layout: Layout = {
    dir,
    primary: path.join(dir, 'primary'),
    standby: path.join(dir, 'standby'),
    primaryLog: path.join(dir, 'primary.log'),
    standbyLog: path.join(dir, 'standby.log'),
  };
  live.add(layout);
  if (!exitHookInstalled) {
    process.on('exit', stopAllSync);
    exitHookInstalled = true;
  }

  /** Runs a PostgreSQL tool; a failure says what ran, what it printed and, for a server, its log's tail. */
  const run = (tool: string, args: string[], logFile?: string) =>
    new Promise<void>((resolve, reject) => {
      const [file, argv] = command(tool, args);
      // The temp dir as cwd: as the postgres user, the caller's directory may be unreadable.
      execFile(file, argv, { cwd: dir, env: toolEnv() }, (err, stdout, stderr) => {
        if (!err) return resolve();
        const output = `${stdout}${stderr}`.trim();
        const why = `exit code ${err.code ?? err.signal ?? '?'}`;
        reject(
          new Error(
            `${tool} ${args.join(' ')} failed (${why})${output ? `:\n${output}` : ''}${logFile ? logTail(logFile) : ''}`,
          ),
        );
      });
    });

  const primaryPort = await freePort();
  let standbyPort = await freePort();
  while (standbyPort === primaryPort) standbyPort = await freePort();

  const url =
    (port: number) =>
    (db = 'postgres', user = 'postgres') =>
      `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${encodeURIComponent(db)}`;
  const primaryUrl = url(primaryPort);
  const standbyUrl = url(standbyPort);

  /** postgresql.conf takes the last value a name is given: appending overrides initdb's (and the primary's) lines. */
  const appendSettings = (dataDir: string, settings: Record<string, string>) =>
    fs.appendFileSync(
      path.join(dataDir, 'postgresql.conf'),
      `\n# replica-pair\n${Object.entries(settings)
        .map(([name, value]) => `${name} = '${value.replaceAll("'", "''")}'\n`)
        .join('')}`,
    );

  const withClient = async <T>(connectionString: string, use: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  };

  /** Retries `attempt` until it returns true or the deadline passes; errors count as "not yet" (a standby starting up). */
  const poll = async (
    what: string,
    timeoutMs: number,
    attempt: () => Promise<boolean>,
    detail?: () => Promise<string>,
  ) => {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    for (;;) {
      try {
        if (await attempt()) return;
      } catch (err) {
        lastError = err;
      }
      if (Date.now() > deadline) {
        const more = detail ? await detail().catch((err: Error) => ` (${err.message})`) : '';
        const cause = lastError ? `; last error: ${(lastError as Error).message}` : '';
        throw new Error(`replica pair: ${what} took over ${timeoutMs} ms${more}${cause}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const waitForReplay = async (timeoutMs = 30_000) => {
    // The primary's WAL write position: with synchronous_commit on (the default), every commit it reported.
    const target = await withClient(primaryUrl(), async (c) => {
      const { rows } = await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      return rows[0]!.lsn;
    });
    await poll(
      `replaying up to ${target} on the standby`,
      timeoutMs,
      () =>
        withClient(standbyUrl(), async (c) => {
          const { rows } = await c.query<{ done: boolean | null }>(
            'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
            [target],
          );
          return rows[0]!.done === true;
        }),
      () =>
        withClient(standbyUrl(), async (c) => {
          const { rows } = await c.query<{ lsn: string; state: string }>(
            'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_get_wal_replay_pause_state() AS state',
          );
          return ` (replayed up to ${rows[0]!.lsn}, replay ${rows[0]!.state})`;
        }),
    );
  };

  const startServer = (dataDir: string, logFile: string) =>
    run('pg_ctl', ['start', '-D', dataDir, '-w', '-t', '60', '-l', logFile], logFile);

  const stopServer = async (dataDir: string, logFile: string, mode: 'immediate' | 'fast') => {
    if (!fs.existsSync(path.join(dataDir, 'postmaster.pid'))) return;
    await run('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '60'], logFile);
  };

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const failures: string[] = [];
      // The standby first, so it does not spend its last moments retrying a primary that went away.
      for (const [dataDir, logFile] of [
        [layout.standby, layout.standbyLog],
        [layout.primary, layout.primaryLog],
      ] as const) {
        try {
          await stopServer(dataDir, logFile, 'fast');
        } catch (err) {
          failures.push((err as Error).message);
          await stopServer(dataDir, logFile, 'immediate').catch((e: Error) => failures.push(e.message));
        }
      }
      live.delete(layout);
      fs.rmSync(dir, { recursive: true, force: true });
      if (failures.length > 0) throw new Error(`replica pair: stopping failed:\n${failures.join('\n')}`);
    })());

  try {
    await run('initdb', [
      '-D',
      layout.primary,
      '--auth=trust',
      '-U',
      'postgres',
      '--no-sync',
      '--encoding=UTF8',
      // Fixed rather than taken from the environment: the same sort order and character classes on every machine.
      '--locale=C.UTF-8',
    ]);
    fs.writeFileSync(
      path.join(layout.primary, 'pg_hba.conf'),
      [
        'local all all trust',
        'local replication all trust',
        'host all all 127.0.0.1/32 trust',
        'host replication all 127.0.0.1/32 trust',
        '',
      ].join('\n'),
    );
    const common = { listen_addresses: '127.0.0.1', unix_socket_directories: dir, hot_standby: 'on' };
    appendSettings(layout.primary, {
      ...common,
      port: String(primaryPort),
      wal_level: 'replica',
      max_wal_senders: '5',
      // Throwaway data: durability buys nothing here, and fsync is what makes WAL-heavy work slow on small disks.
      fsync: 'off',
      shared_buffers: '32MB',
      max_connections: '100',
      ...options.settings,
    });
    await startServer(layout.primary, layout.primaryLog);

    // A slot keeps the WAL the standby has not received yet, so a standby stopped for a while still catches up.
    await run('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', layout.standby],
      ...['-R', '-X', 'stream', '--no-sync', '--create-slot', '--slot', SLOT],
    ]);
    appendSettings(layout.standby, {
      ...common,
      port: String(standbyPort),
      hot_standby_feedback: 'on',
      max_standby_streaming_delay: '30s',
      wal_receiver_status_interval: '1s',
      ...options.settings,
    });
    await startServer(layout.standby, layout.standbyLog);
    await waitForReplay();
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }

  return {
    primaryPort,
    standbyPort,
    primaryUrl,
    standbyUrl,

    async createDatabase(name, { owner } = {}) {
      await withClient(primaryUrl(), async (c) => {
        if (owner) {
          const { rowCount } = await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [owner]);
          if (!rowCount) await c.query(`CREATE ROLE ${pg.escapeIdentifier(owner)} LOGIN NOSUPERUSER NOBYPASSRLS`);
        }
        await c.query(
          `CREATE DATABASE ${pg.escapeIdentifier(name)}${owner ? ` OWNER ${pg.escapeIdentifier(owner)}` : ''}`,
        );
      });
      await poll(`database ${name} reaching the standby`, 30_000, () => withClient(standbyUrl(name), async () => true));
    },

    waitForReplay,

    async pauseReplay() {
      await withClient(standbyUrl(), async (c) => {
        await c.query('SELECT pg_wal_replay_pause()');
      });
      // Pausing is a request the startup process takes up between records: once it says `paused`, nothing more is applied.
      await poll('pausing replay', 10_000, () =>
        withClient(standbyUrl(), async (c) => {
          const { rows } = await c.query<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state');
          return rows[0]!.state === 'paused';
        }),
      );
    },

    async resumeReplay() {
      await withClient(standbyUrl(), async (c) => {
        await c.query('SELECT pg_wal_replay_resume()');
      });
    },

    stopStandby: (mode) => stopServer(layout.standby, layout.standbyLog, mode),
    startStandby: () => startServer(layout.standby, layout.standbyLog),
    stop,
  };
}
