import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/platform/data-dir-lock.ts';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-lock-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const lockFile = () => path.join(dir, 'pglite.lock');

describe('lockDataDir', () => {
  it('writes its pid, leaves nothing else behind, and removes the lock on release', async () => {
    const release = await lockDataDir(dir);
    expect(await fs.readFile(lockFile(), 'utf8')).toBe(`${process.pid}\n`);
    expect(await fs.readdir(dir)).toEqual(['pglite.lock']);
    await release();
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it('refuses while another live process holds the lock, naming it', async () => {
    // The parent of this worker is alive for as long as the test runs.
    await fs.writeFile(lockFile(), `${process.ppid}\n`);
    const attempt = lockDataDir(dir);
    await expect(attempt).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(attempt).rejects.toThrow(`in use by process ${process.ppid}`);
    expect(await fs.readFile(lockFile(), 'utf8')).toBe(`${process.ppid}\n`);
  });

  it('takes over a lock left by a process that has exited, or an unreadable one', async () => {
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    await fs.writeFile(lockFile(), `${exited.stdout}\n`);
    const release = await lockDataDir(dir);
    expect(await fs.readFile(lockFile(), 'utf8')).toBe(`${process.pid}\n`);
    await release();

    await fs.writeFile(lockFile(), 'garbage');
    await (
      await lockDataDir(dir)
    )();
  });
});
