import fs from 'node:fs/promises';
import path from 'node:path';

// PGlite has no postmaster: two processes on one directory would corrupt each other's writes. The lock file
// holds the owner's pid; a lock whose process no longer exists is taken over.

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number, file: string) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid} (a running server or another command). ` +
        `Stop it first, or set DATABASE_URL to use a PostgreSQL server. If no such process exists, delete ${file}.`,
    );
    this.name = 'DataDirLockedError';
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, 'pglite.lock');
  // Written whole under a private name, then linked into place: link() fails when the
  // lock exists, and nobody ever reads a lock file whose pid is not written yet.
  const mine = `${file}.${process.pid}`;
  await fs.writeFile(mine, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.link(mine, file);
        return () => fs.rm(file, { force: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const pid = Number.parseInt(await fs.readFile(file, 'utf8').catch(() => ''), 10);
      // Our own pid there can only be a previous life of it (a restarted container's pid 1).
      const stale = !(pid > 0) || pid === process.pid || !isRunning(pid);
      if (!stale || attempt > 0) throw new DataDirLockedError(dataDir, pid, file);
      await fs.rm(file, { force: true });
    }
  } finally {
    await fs.rm(mine, { force: true });
  }
}
