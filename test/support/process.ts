import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceNodeArgs } from '../../scripts/lib/start-command.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A port that was free a moment ago (the server process has to be told one). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** JSON log lines written so far (other stdout text is skipped). */
  logs: Record<string, any>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForLog(match: (line: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  kill(): void;
}

/** The real service, started exactly as `npm start` starts it. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const base = { ...process.env } as Record<string, string>;
  delete base.DATABASE_URL;
  const child = spawn(process.execPath, serviceNodeArgs(), {
    cwd: ROOT,
    env: { ...base, NODE_ENV: 'production', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, any>[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const part of parts) {
      if (!part.startsWith('{')) continue;
      try {
        logs.push(JSON.parse(part));
      } catch {
        continue;
      }
    }
    for (const wake of waiters) wake();
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  // 'exit' can come before the last of stdout has been read: wait for its end too (a worker that
  // outlives the primary keeps the pipe open, hence the bound).
  const stdoutEnded = new Promise<void>((resolve) => {
    child.stdout.once('end', resolve);
    child.once('exit', () => setTimeout(resolve, 2_000).unref());
  });
  let outputDone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      void stdoutEnded.then(() => {
        outputDone = true;
        for (const wake of waiters) wake();
        resolve({ code, signal });
      });
    }),
  );

  const waitForLog: ServerProcess['waitForLog'] = (match, timeoutMs = 30_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = logs.find(match);
        if (found) {
          cleanup();
          resolve(found);
        } else if (outputDone) {
          cleanup();
          reject(
            new Error(
              `server exited (${child.exitCode ?? child.signalCode}) before the expected log line; stderr: ${stderr}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no such log line within ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    url: `http://127.0.0.1:${port}`,
    child,
    logs,
    exited,
    waitForLog,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Polls a URL until it answers with the status, or the time runs out. */
export async function waitForStatus(url: string, status: number, timeoutMs: number): Promise<number | string> {
  const until = Date.now() + timeoutMs;
  let last: number | string = 'no answer';
  while (Date.now() < until) {
    last = await fetch(url).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    if (last === status) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}
