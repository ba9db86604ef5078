import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicaPairSupport, startReplicaPair, type ReplicaPair } from '../../scripts/lib/replica-pair.ts';

// The pair needs only PostgreSQL's binaries, not DATABASE_URL; the gate keeps it to the PostgreSQL run of the
// suite (CI runs the suite twice) and names it in the notice of what a run without DATABASE_URL skipped.
const onPostgres = Boolean(process.env.DATABASE_URL);
const support = replicaPairSupport();

const DB = 'replica_pair_test';
const OWNER = 'replica_pair_owner';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!onPostgres)('a throwaway primary and hot standby (PostgreSQL)', () => {
  describe.skipIf(!support.ok)(`scripts/lib/replica-pair.ts${support.ok ? '' : ` (${support.reason})`}`, () => {
    let pair: ReplicaPair;
    let primary: string;
    let standby: string;
    const count = async (url: string) => Number((await query<{ n: string }>(url, 'SELECT count(*) AS n FROM t'))[0]!.n);

    beforeAll(async () => {
      pair = await startReplicaPair();
      await pair.createDatabase(DB, { owner: OWNER });
      primary = pair.primaryUrl(DB, OWNER);
      standby = pair.standbyUrl(DB, OWNER);
    });
    afterAll(async () => {
      await pair?.stop();
    });

    it('runs on ports of its own, the standby in recovery and read-only', async () => {
      expect(new Set([pair.primaryPort, pair.standbyPort, 5432]).size).toBe(3);
      expect(await query(standby, 'SELECT pg_is_in_recovery() AS r')).toEqual([{ r: true }]);
      expect(await query(primary, 'SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user')).toEqual([
        { rolsuper: false, rolbypassrls: false },
      ]);
      await expect(query(standby, 'CREATE TABLE nope (id int)')).rejects.toThrow(/read-only transaction/);
    });

    it('replays a table, its row and pg_trgm, created on the primary by the database owner', async () => {
      await query(primary, 'CREATE EXTENSION pg_trgm');
      await query(primary, 'CREATE TABLE t (id int PRIMARY KEY, name text)');
      await query(primary, "INSERT INTO t VALUES (1, 'one')");
      await pair.waitForReplay();
      expect(await query(standby, 'SELECT id, name FROM t')).toEqual([{ id: 1, name: 'one' }]);
      expect(await query(standby, "SELECT similarity('replica', 'replicas') > 0.5 AS close")).toEqual([
        { close: true },
      ]);
    });

    it('holds back what the primary writes while replay is paused, and applies it on resuming', async () => {
      await pair.pauseReplay();
      await query(primary, "INSERT INTO t VALUES (2, 'two')");
      await expect(pair.waitForReplay(300)).rejects.toThrow(/replay paused/);
      expect(await count(standby)).toBe(1);
      await pair.resumeReplay();
      await pair.waitForReplay();
      expect(await count(standby)).toBe(2);
    });

    it('comes back from an immediate stop and catches up on what it missed', async () => {
      await pair.stopStandby('immediate');
      await expect(query(standby, 'SELECT 1')).rejects.toThrow();
      await query(primary, "INSERT INTO t VALUES (3, 'three')");
      await pair.startStandby();
      await pair.waitForReplay();
      expect(await query(standby, 'SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    });
  });
});
