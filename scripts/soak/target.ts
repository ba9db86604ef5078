import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { loadConfig } from '../../src/config.ts';
import { createAuthService } from '../../src/modules/auth/index.ts';
import type { Database } from '../../src/modules/index.ts';
import { createDatabase } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { residentBytes } from '../lib/proc.ts';
import { echoStderr, startServer, stopServer, type Server } from '../lib/service-process.ts';
import { ensureBuilt, serviceNodeArgs } from '../lib/start-command.ts';
import { actOutsideTenantsAs, DEFAULT_TENANT_ID } from '../../src/platform/tenancy.ts';

// A measurement of one company: what this script seeds and reads directly is the default tenant's.
actOutsideTenantsAs(DEFAULT_TENANT_ID);

/** What the clients run against: a server this run started, or one already running (--url). */
export interface Target {
  base: string;
  users: { email: string; password: string }[];
  rss(): Promise<number | undefined>;
  /** Stops what this run started; returns the line that says how it ended. */
  stop(): Promise<string>;
}

/** A fresh database of its own: created from adminUrl and dropped at the end, or a temporary embedded one. */
async function createScratchDatabase(adminUrl: string | undefined) {
  if (!adminUrl) {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-soak-'));
    return { dataDir, databaseUrl: undefined, drop: () => fs.rm(dataDir, { recursive: true, force: true }) };
  }
  const name = `pcs_soak_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  return { dataDir: undefined, databaseUrl: url.toString(), drop };
}

/** A fresh database (PostgreSQL or embedded), seeded, one user per client, and a real server process on it. */
export async function startOwnServer(opts: { adminUrl?: string; products: string; clients: number }): Promise<Target> {
  const { databaseUrl, dataDir, drop } = await createScratchDatabase(opts.adminUrl);
  const config = loadConfig({
    NODE_ENV: 'production',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir! }),
  });
  const logger = createLogger('warn');
  const database = await createDatabase<Database>({
    databaseUrl,
    dataDir: config.database.dataDir,
    poolSize: 2,
    logger,
  });
  await migrateToLatest(database.db);
  await seedCatalog(database.db, { products: Number(opts.products), seed: 7 });
  const auth = createAuthService({ db: database.db, config: config.auth, logger });
  const users = [];
  for (let i = 0; i < opts.clients; i++) {
    const user = { email: `soak${i}@example.com`, password: randomBytes(12).toString('base64url') };
    await auth.createUser({ name: `Soak ${i}`, ...user, isAdmin: false });
    users.push(user);
  }
  // The embedded database takes one process at a time: let go before the server opens it.
  await database.close();

  // An empty DATABASE_URL counts as unset: the embedded run must not take this shell's.
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl ?? '',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
  };
  let server: Server;
  try {
    ensureBuilt();
    server = await startServer('service', serviceNodeArgs(), env, 'GraphiQL: ');
  } catch (err) {
    await drop();
    throw err;
  }
  // Its warnings belong on the soak's terminal, as they come.
  echoStderr(server);
  const { child } = server;
  console.log(
    `server pid ${child.pid} on ${server.url} (${databaseUrl ? 'PostgreSQL' : 'embedded'}), ${opts.products} products`,
  );
  return {
    base: server.url,
    users,
    rss: async () => residentBytes(child.pid!),
    async stop() {
      await stopServer(server);
      await drop();
      return `server exit code after SIGTERM: ${child.exitCode}`;
    },
  };
}

export async function useRunningServer(opts: {
  url: string;
  email?: string;
  password?: string;
  metricsToken?: string;
}): Promise<Target> {
  const { email, password, metricsToken } = opts;
  if (!email || !password) throw new Error('--url needs --email and --password');
  const base = opts.url.replace(/\/$/, '');
  return {
    base,
    users: [{ email, password }],
    async rss() {
      if (!metricsToken) return undefined;
      const text = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } }).then((r) =>
        r.text(),
      );
      const value = /^process_resident_memory_bytes (\S+)/m.exec(text)?.[1];
      return value ? Number(value) : undefined;
    },
    stop: async () => 'running server left as it was',
  };
}
