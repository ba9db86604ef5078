import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * PGlite is PostgreSQL inside one process, without a postmaster to arbitrate:
 * two processes opening the same directory (the server and `npm run admin`, say)
 * would each cache and write the same files, and one would silently lose the
 * other's writes or corrupt them. A lock file holding the owner's pid turns that
 * into a clear error. A lock left by a process that no longer exists (a crash,
 * kill -9) is taken over, so nobody has to clean up by hand.
 */

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

/** Takes the lock on dataDir or throws DataDirLockedError; returns its release. */
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
