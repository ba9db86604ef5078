import pg from 'pg';
import { treeTicks } from '../lib/proc.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Statistics and CPU of the benchmark database's backends, read from a connection to another database. */
export class PgMonitor {
  private client: pg.Client;
  constructor(
    url: string,
    private readonly dbName: string,
  ) {
    const admin = new URL(url);
    admin.pathname = '/postgres';
    this.client = new pg.Client({ connectionString: admin.toString() });
  }
  connect() {
    return this.client.connect();
  }
  end() {
    return this.client.end();
  }
  async backendPids(): Promise<number[]> {
    const { rows } = await this.client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.dbName],
    );
    return rows.map((r) => r.pid);
  }
  async committed(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
      [this.dbName],
    );
    return Number(rows[0]!.n);
  }
  /**
   * Waits until requests still queued in the servers when wrk stopped have
   * finished: every backend idle and the servers' CPU time (workers included) unchanged for 300 ms.
   */
  async drain(serverPids: number[]): Promise<void> {
    const serverTicks = () =>
      serverPids.reduce((sum, pid) => sum + [...treeTicks(pid).values()].reduce((a, b) => a + b, 0), 0);
    for (let quiet = 0, i = 0, last = serverTicks(); quiet < 3 && i < 600; i++) {
      await sleep(100);
      const { rows } = await this.client.query<{ busy: number }>(
        "SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND state <> 'idle'",
        [this.dbName],
      );
      const now = serverTicks();
      quiet = rows[0]!.busy === 0 && now === last ? quiet + 1 : 0;
      last = now;
    }
  }

  /**
   * Ends the benchmark database's backends once drained: an exiting backend
   * flushes its pending statistics at once, where an idle one may hold them back
   * for up to 10 s. Both servers' pools reconnect on their next request.
   */
  async flush(serverPids: number[]): Promise<void> {
    await this.drain(serverPids);
    await this.client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.dbName],
    );
    for (let i = 0; i < 100 && (await this.backendPids()).length > 0; i++) await sleep(20);
  }
}
