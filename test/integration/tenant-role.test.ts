import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, ensureServiceRole, type ScratchDatabase } from '../../scripts/lib/scratch-database.ts';
import { startServerProcess } from '../support/process.ts';

const reason = 'the database role is a PostgreSQL role (set DATABASE_URL)';
const WARNING = /superuser or has BYPASSRLS/;

// Row-level security binds neither superusers nor BYPASSRLS roles: the service says so at start.
describe.skipIf(!process.env.DATABASE_URL)(`the service's database role (${reason})`, () => {
  let asOwner: ScratchDatabase;
  let asSuperuser: ScratchDatabase;

  beforeAll(async () => {
    const adminUrl = process.env.DATABASE_URL!;
    await ensureServiceRole(adminUrl, 'pcs_test_service');
    asOwner = await createScratchDatabase(adminUrl, `pcs_role_${randomBytes(4).toString('hex')}`, {
      owner: 'pcs_test_service',
    });
    asSuperuser = await createScratchDatabase(adminUrl, `pcs_role_${randomBytes(4).toString('hex')}`);
  });
  afterAll(async () => {
    await asOwner?.drop();
    await asSuperuser?.drop();
  });

  it('as an ordinary role owning its database: migrates, serves, and warns of nothing', async () => {
    const server = await startServerProcess({ DATABASE_URL: asOwner.url });
    try {
      await server.waitForLog((l) => l.msg === 'ready', 90_000);
      expect(server.logs.filter((l) => WARNING.test(String(l.msg)))).toEqual([]);
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    } finally {
      server.kill();
      await server.exited;
    }
  });

  it('as a superuser: warns once at start, naming the docs', async () => {
    const server = await startServerProcess({ DATABASE_URL: asSuperuser.url });
    try {
      await server.waitForLog((l) => l.msg === 'ready', 90_000);
      const warnings = server.logs.filter((l) => WARNING.test(String(l.msg)));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.level).toBe(40);
      expect(warnings[0]!.msg).toContain('docs/tenants.md');
    } finally {
      server.kill();
      await server.exited;
    }
  });
});
