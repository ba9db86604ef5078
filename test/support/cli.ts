import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, type DatabaseHandle } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createScratchDatabase, ensureServiceRole } from '../../scripts/lib/scratch-database.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Settings the CLIs read that the test runner's own environment must not leak into them.
const CONTROLLED_ENV = ['DATABASE_URL', 'DATA_DIR', 'TOKEN_EXPIRATION_MINUTES', 'TOKEN_PREFIX', 'LOG_LEVEL'];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * An empty, unmigrated database for CLIs run as child processes: a fresh
 * PostgreSQL database when DATABASE_URL is set (the one the suite runs on), else
 * a temporary DATA_DIR where the child creates its own embedded database.
 */
export interface CliTarget {
  env: Record<string, string>;
  /** Runs `node --import tsx scripts/<script>.ts ...args` against this database. */
  run(script: string, args: string[], options?: { input?: string; env?: Record<string, string> }): Promise<CliResult>;
  /**
   * Opens the same database in the test process. The embedded database allows one
   * process at a time, so close it before running the next CLI.
   */
  open(): Promise<DatabaseHandle>;
  drop(): Promise<void>;
}

export async function createCliTarget(): Promise<CliTarget> {
  const adminUrl = process.env.DATABASE_URL;
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  if (adminUrl) {
    // As deployed: the commands run as an ordinary role owning the database (row-level security binds it).
    await ensureServiceRole(adminUrl, 'pcs_test_service');
    const scratch = await createScratchDatabase(adminUrl, `pcs_scripts_${randomBytes(6).toString('hex')}`, {
      owner: 'pcs_test_service',
    });
    env = { DATABASE_URL: scratch.url };
    drop = scratch.drop;
  } else {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-scripts-'));
    env = { DATA_DIR: dir };
    drop = () => fs.rm(dir, { recursive: true, force: true });
  }

  return {
    env,
    drop,
    run(script, args, options = {}) {
      const childEnv: NodeJS.ProcessEnv = { ...process.env };
      for (const name of CONTROLLED_ENV) delete childEnv[name];
      Object.assign(childEnv, env, options.env);
      return runNode(path.join(ROOT, 'scripts', `${script}.ts`), args, childEnv, options.input);
    },
    open() {
      return createDatabase({
        databaseUrl: env.DATABASE_URL,
        dataDir: env.DATA_DIR ?? '',
        poolSize: 2,
        logger: createLogger('silent'),
      });
    },
  };
}

function runNode(file: string, args: string[], env: NodeJS.ProcessEnv, input: string | undefined): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { cwd: ROOT, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // Stdin is a pipe, never a terminal: a CLI that would prompt must refuse instead.
    child.stdin.end(input ?? '');
  });
}
