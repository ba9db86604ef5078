import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { createCliTarget, type CliTarget } from '../support/cli.ts';

// `npm run admin -- configurations:prune`: retention of saved configurations, run as the operator would.

let target: CliTarget;
beforeAll(async () => {
  target = await createCliTarget();
});
afterAll(() => target?.drop());

describe('admin configurations:prune', () => {
  it('keeps everything without a retention, then deletes what is older than CONFIGURATION_RETENTION_DAYS or --days', async () => {
    const kept = await target.run('admin', ['configurations:prune']);
    expect(kept.stdout).toContain(
      'CONFIGURATION_RETENTION_DAYS is unset and no --days given: saved configurations are kept.',
    );
    expect(kept.code).toBe(0);
    // Migrates the database, finds nothing to delete.
    expect((await target.run('admin', ['configurations:prune', '--days', '1'])).stdout).toContain(
      'Deleted 0 configurations',
    );

    let handle = await target.open();
    // As the default tenant, which the command acts in.
    const insert = (id: string, daysAgo: number) =>
      withTenant(DEFAULT_TENANT_ID, () =>
        sql`
      INSERT INTO configurations (id, product_id, selections, base_cents, total_cents, currency, product_updated_at, created_at)
      VALUES (${id}, 1, '[]', 0, 0, 'EUR', now(), now() - make_interval(days => ${daysAgo}::int))`.execute(handle.db),
      );
    await insert('oldOldOld001', 10);
    await insert('midMidMid001', 3);
    await insert('newNewNew001', 0);
    await handle.close();

    const byEnv = await target.run('admin', ['configurations:prune'], { env: { CONFIGURATION_RETENTION_DAYS: '5' } });
    expect(byEnv.stdout).toContain('Deleted 1 configuration saved more than 5 days ago.');
    const byFlag = await target.run('admin', ['configurations:prune', '--days', '2'], {
      env: { CONFIGURATION_RETENTION_DAYS: '5' },
    });
    expect(byFlag.stdout).toContain('Deleted 1 configuration saved more than 2 days ago.');

    handle = await target.open();
    const { rows } = await withTenant(DEFAULT_TENANT_ID, () =>
      sql<{ id: string }>`SELECT id FROM configurations ORDER BY id`.execute(handle.db),
    );
    await handle.close();
    expect(rows.map((r) => r.id)).toEqual(['newNewNew001']);
  }, 240_000);
});
