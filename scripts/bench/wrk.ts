import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('wrk.lua', import.meta.url));

/** What wrk.lua's done() prints on its WRK_RESULT line. */
export interface WrkResult {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  bad: number;
  sent: number;
}

/** The path of wrk, installed with apt-get (Debian package wrk) when missing. */
export function ensureWrk(log: (line: string) => void): string {
  try {
    return execFileSync('which', ['wrk'], { encoding: 'utf8' }).trim();
  } catch {
    log('wrk not found; installing it with apt-get (Debian package wrk)...');
    try {
      execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit' });
    } catch {
      // The package lists may be missing (a fresh container): fetch them once and retry.
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
      execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit' });
    }
    return execFileSync('which', ['wrk'], { encoding: 'utf8' }).trim();
  }
}

export interface WrkLoad {
  wrk: string;
  threads: number;
  connections: number;
  /** One JSON request body per line; wrk.lua draws from them at random. */
  bodiesFile: string;
  token: string;
  /** Another wrk script taking the same arguments (wrk-tenants.lua); default wrk.lua. */
  script?: string;
}

export function runWrk(load: WrkLoad, url: string, seconds: number): Promise<WrkResult> {
  const { wrk, threads, connections, bodiesFile, token } = load;
  const args = [
    `-t${threads}`,
    `-c${connections}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    load.script ?? SCRIPT,
    `${url}/graphql`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(wrk, [...args, '--', bodiesFile, token], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
      if (code !== 0 || !line) return reject(new Error(`wrk failed (${code}):\n${out}`));
      resolve(JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult);
    });
  });
}

/** Transport errors, timeouts and non-2xx as wrk counts them. */
export const wrkErrors = (r: WrkResult) => r.connect + r.read + r.write + r.status + r.timeout;
