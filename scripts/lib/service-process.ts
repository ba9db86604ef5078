import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A server process started by a script (the bench, the soak, the abuse run), on a port of its own. */
export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  /** The last 200 chunks it wrote to stderr, for the error when it dies. */
  stderr: string[];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Starts `node <args>` with a free port and waits until it answers. printsWhenReady:
 * a stdout line the server prints once fully up (the service, once migrated and
 * every worker listens). cwd: another checkout's service (a before/after run).
 */
export async function startServer(
  name: string,
  args: string[],
  env: Record<string, string>,
  printsWhenReady?: string,
  cwd = ROOT,
): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.on('data', (c: Buffer) => {
    stderr.push(c.toString());
    if (stderr.length > 200) stderr.shift();
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    if (printsWhenReady && !stdout.includes(printsWhenReady)) stdout += c;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (hasExited(child))
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${stderr.join('')}`);
    const answered = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).then(
      (res) => res.arrayBuffer().then(() => true),
      () => false,
    );
    if (answered && (!printsWhenReady || stdout.includes(printsWhenReady))) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${stderr.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { name, url, child, stderr };
}

/** Copies the server's stderr to this process's from now on, after what it wrote while starting. */
export function echoStderr(server: Server): void {
  process.stderr.write(server.stderr.join(''));
  server.child.stderr!.on('data', (c: Buffer) => process.stderr.write(c));
}

/** SIGTERM, then SIGKILL if it has not exited after graceMs: a script must never leave a server behind. */
export async function stopServer(server: Server, graceMs = 15_000): Promise<void> {
  const { child } = server;
  if (hasExited(child)) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), new Promise((r) => setTimeout(r, graceMs, true))]);
  if (timedOut && !hasExited(child)) {
    child.kill('SIGKILL');
    await exited;
  }
}
