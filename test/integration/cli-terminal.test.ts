import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Opening the embedded database takes seconds on a busy machine: a command run by a person at a
// terminal says so before it waits, and one whose output goes to a pipe prints only its own output.
// util-linux's `script` gives the command a real terminal.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const COMMAND = `${JSON.stringify(process.execPath)} --import tsx scripts/admin.ts tokens:prune-expired`;

describe.skipIf(Boolean(process.env.DATABASE_URL))('an admin command on the embedded database', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-cli-terminal-'));
    env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
  });
  afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('says it is opening the database before it waits, at a terminal only', async () => {
    const atTerminal = await run('script', ['-qefc', COMMAND, '/dev/null'], { cwd: ROOT, env, timeout: 120_000 });
    const lines = atTerminal.stdout.split(/\r?\n/);
    expect(lines[0]).toBe(`Opening the embedded database in ${dataDir}…`);
    expect(atTerminal.stdout).toContain('Deleted 0 tokens');

    const piped = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'tokens:prune-expired'], {
      cwd: ROOT,
      env,
      timeout: 120_000,
    });
    expect(piped.stdout + piped.stderr).not.toContain('Opening the embedded database');
    expect(piped.stdout).toContain('Deleted 0 tokens');
  }, 240_000);
});
