import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A throwaway PgBouncer in transaction mode in front of a PostgreSQL server, as a deployment behind one
 * would have it (docs/operations.md, "Behind PgBouncer"): every database name is forwarded, trust
 * authentication, `statement_timeout` accepted at start-up and dropped (PgBouncer 1.18 refuses unknown
 * start-up parameters). Config, user list and log live in a temporary directory removed on stop().
 */
export interface PgBouncer {
  host: string;
  port: number;
  /** url with its host and port replaced by the bouncer's. */
  through(url: string): string;
  /** The bouncer's log so far (its stderr). */
  log(): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The PostgreSQL server forwarded to. */
  upstreamHost: string;
  upstreamPort: number;
  /** Roles that may log in (trust still looks the name up in the user list). */
  users: readonly string[];
  /** Server connections per database and user. */
  poolSize?: number;
  /** The executable; `pgbouncer` on PATH by default. */
  binary?: string;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const host = '127.0.0.1';
  const port = await freePort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-pgbouncer-'));
  const config = path.join(dir, 'pgbouncer.ini');
  const userlist = path.join(dir, 'userlist.txt');
  await fs.writeFile(userlist, options.users.map((user) => `"${user}" ""\n`).join(''));
  await fs.writeFile(
    config,
    [
      '[databases]',
      `* = host=${options.upstreamHost} port=${options.upstreamPort}`,
      '[pgbouncer]',
      `listen_addr = ${host}`,
      `listen_port = ${port}`,
      // No Unix socket: two bouncers (or a system one) would contend for its path.
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${userlist}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 500',
      // pg sends statement_timeout at start-up; 1.18 refuses the connection unless told to drop it.
      'ignore_startup_parameters = statement_timeout',
      // Test databases come and go by the hundred: forget an idle one's pool soon.
      'autodb_idle_timeout = 30',
      'server_login_retry = 1',
      // Thousands of test connections: the log keeps what went wrong, not each login.
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );

  // PgBouncer refuses to run as root: run it as the postgres OS user, which must read its config.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await fs.chmod(dir, 0o755);
    await Promise.all([fs.chmod(config, 0o644), fs.chmod(userlist, 0o644)]);
  }
  const binary = options.binary ?? 'pgbouncer';
  const child: ChildProcess = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', binary, config], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(binary, [config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  let gone = false;
  // 'error' alone when it could not be started (no runuser, no pgbouncer).
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => ((gone = true), resolve()));
    child.once('error', (err) => ((log += `${err.message}\n`), (gone = true), resolve()));
  });

  const stop = async () => {
    // SIGTERM: immediate shutdown (runuser passes it on); SIGKILL if it lingers.
    if (!gone) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    await fs.rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  while (!(await answers(host, port))) {
    if (gone || Date.now() > deadline) {
      await stop();
      throw new Error(`PgBouncer did not start on ${host}:${port}:\n${log.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    host,
    port,
    through(url) {
      const u = new URL(url);
      u.hostname = host;
      u.port = String(port);
      return u.toString();
    },
    log: () => log,
    stop,
  };
}
