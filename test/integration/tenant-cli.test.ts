import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { createCliTarget, type CliResult, type CliTarget } from '../support/cli.ts';

// The admin CLI's tenant lifecycle and its --tenant option, run as processes (node --import tsx
// scripts/admin.ts) against a database of their own, as the service's ordinary role on PostgreSQL.
// Tests build on what the previous ones left: each CLI run takes seconds.

const SLOW = 300_000;
const WARNING =
  'Warning: the default tenant has no host: once any tenant has one, requests for other hosts answer 404; ' +
  'give it its own first: tenant:hosts --slug default --add …';
/** Every table a tenant owns rows of. */
const TENANT_TABLES = [
  'users',
  'personal_access_tokens',
  'login_throttle',
  'products',
  'steps',
  'components',
  'customisations',
  'configuration_rules',
  'configurations',
  'trusted_documents',
] as const;

let target: CliTarget;
let dir: string;
beforeAll(async () => {
  target = await createCliTarget();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-tenant-cli-'));
  const migrated = await target.run('migrate', []);
  expect(migrated.code, migrated.stderr).toBe(0);
}, SLOW);
afterAll(async () => {
  await target?.drop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const admin = (args: string[], input?: string) => target.run('admin', args, input === undefined ? {} : { input });

/** A refusal: its exit code, one line on stderr (no stack), nothing on stdout. */
function expectRefused(result: CliResult, code: number, message: string | RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).toMatch(/^Error: [^\n]*\n$/);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).toBe('');
}

async function withOpen<T>(fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  const handle = await target.open();
  try {
    return await fn(handle.db);
  } finally {
    await handle.close();
  }
}

/** Rows per tenant-owned table, as the tenant sees them. */
async function countRows(db: Kysely<any>, tenantId: string): Promise<Record<string, number>> {
  return withTenant(tenantId, async () => {
    const counts: Record<string, number> = {};
    for (const table of TENANT_TABLES) {
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
      counts[table] = Number(rows[0]!.n);
    }
    return counts;
  });
}

/** The `tenant:list` line of a slug, split into its columns. */
function listed(stdout: string, slug: string): string[] | undefined {
  return stdout
    .split('\n')
    .map((line) => line.split(/ {2,}/))
    .find((cells) => cells[1] === slug);
}

let acmeId: string;

describe('admin tenant:*', () => {
  it(
    'create: hosts normalised, the default-host warning, duplicate slug and taken host refused, bad input before the database',
    async () => {
      const created = await admin([
        'tenant:create',
        '--slug',
        'acme',
        '--name',
        'Acme AG',
        '--host',
        'Shop.Acme.Example:8443',
      ]);
      expect(created.code, created.stderr).toBe(0);
      acmeId = /^Created tenant (\d+) 'acme' \(Acme AG\)/.exec(created.stdout)?.[1] ?? '';
      expect(acmeId).not.toBe('');
      expect(created.stdout).toContain('hosts: shop.acme.example.');
      expect(created.stderr).toContain(`${WARNING}\n`);

      expectRefused(
        await admin(['tenant:create', '--slug', 'acme', '--name', 'Again']),
        1,
        "A tenant with slug 'acme' already exists.",
      );
      expectRefused(
        await admin(['tenant:create', '--slug', 'beta', '--name', 'Beta', '--host', 'SHOP.acme.example']),
        1,
        "The host shop.acme.example belongs to tenant 'acme'.",
      );
      // Refused before the database is opened, so these may run side by side.
      const [badSlug, badHost, noName, noSlug] = await Promise.all([
        admin(['tenant:create', '--slug', 'Beta_1', '--name', 'Beta']),
        admin(['tenant:create', '--slug', 'beta', '--name', 'Beta', '--host', 'beta example.com']),
        admin(['tenant:create', '--slug', 'beta']),
        admin(['tenant:hosts', '--add', 'x.example']),
      ]);
      expectRefused(badSlug, 2, "--slug must be 1 to 40 of a-z, 0-9 and '-'");
      expectRefused(badHost, 2, "'beta example.com' is not a host name.");
      expectRefused(noName, 2, '--name is required.');
      expectRefused(noSlug, 2, '--slug is required.');
    },
    SLOW,
  );

  it(
    'hosts: add and remove; once default has a host, no warning; list shows state and hosts; suspend and resume',
    async () => {
      const own = await admin(['tenant:hosts', '--slug', 'default', '--add', 'api.example.com']);
      expect(own.code, own.stderr).toBe(0);
      expect(own.stdout).toBe("Tenant 'default': added api.example.com; hosts: api.example.com.\n");
      expect(own.stderr).not.toContain('Warning');

      const beta = await admin(['tenant:create', '--slug', 'beta', '--name', 'Beta', '--host', 'beta.example.com']);
      expect(beta.code, beta.stderr).toBe(0);
      expect(beta.stderr).not.toContain('Warning');

      const moved = await admin([
        'tenant:hosts',
        '--slug',
        'acme',
        '--add',
        'www.acme.example',
        '--add',
        'acme.example',
        '--remove',
        'shop.acme.example',
      ]);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stdout).toBe(
        "Tenant 'acme': added www.acme.example, acme.example; removed shop.acme.example; hosts: acme.example, www.acme.example.\n",
      );
      expectRefused(
        await admin(['tenant:hosts', '--slug', 'acme', '--add', 'beta.example.com']),
        1,
        "The host beta.example.com belongs to tenant 'beta'.",
      );
      expectRefused(
        await admin(['tenant:hosts', '--slug', 'acme', '--remove', 'beta.example.com']),
        1,
        "Tenant 'acme' has no host beta.example.com.",
      );

      const suspended = await admin(['tenant:suspend', '--slug', 'beta']);
      expect(suspended.code, suspended.stderr).toBe(0);
      expect(suspended.stdout).toContain("Tenant 'beta' suspended");
      const list = await admin(['tenant:list']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/^id +slug +name +state +hosts +created_at$/m);
      expect(listed(list.stdout, 'default')?.slice(0, 5)).toEqual([
        '1',
        'default',
        'Default',
        'active',
        'api.example.com',
      ]);
      expect(listed(list.stdout, 'acme')?.slice(0, 5)).toEqual([
        acmeId,
        'acme',
        'Acme AG',
        'active',
        'acme.example,www.acme.example',
      ]);
      expect(listed(list.stdout, 'beta')?.slice(2, 5)).toEqual(['Beta', 'suspended', 'beta.example.com']);

      const resumed = await admin(['tenant:resume', '--slug', 'beta']);
      expect(resumed.stdout).toContain("Tenant 'beta' resumed");
      expect(listed((await admin(['tenant:list'])).stdout, 'beta')?.[3]).toBe('active');
      expectRefused(await admin(['tenant:suspend', '--slug', 'nobody']), 1, "No tenant with slug 'nobody'");
    },
    SLOW,
  );
});

describe('admin --tenant', () => {
  const product = (name: string) => ({
    products: [
      {
        sku: 'SHARED-1',
        name,
        steps: [{ order: 1, name: 'Size', components: [{ name: 'Top', position: 1, customisations: [] }] }],
      },
    ],
  });

  it(
    'user:create, catalog:import and catalog:export act inside the named tenant only; an unknown one is refused',
    async () => {
      await fs.writeFile(path.join(dir, 'acme.json'), JSON.stringify(product('Acme desk')));
      await fs.writeFile(path.join(dir, 'default.json'), JSON.stringify(product('Default desk')));
      for (const [file, tenant] of [
        ['acme.json', ['--tenant', 'acme']],
        ['default.json', []],
      ] as const) {
        const imported = await admin(['catalog:import', path.join(dir, file), ...tenant]);
        expect(imported.code, imported.stderr).toBe(0);
        expect(imported.stdout).toContain('created 1, updated 0');
      }
      const password = 'correct horse battery staple';
      for (const tenant of [['--tenant', 'acme'], []]) {
        const user = await admin(
          ['user:create', '--email', 'ops@example.com', '--name', 'Ops', '--password-stdin', ...tenant],
          `${password}\n`,
        );
        expect(user.code, user.stderr).toBe(0);
        expect(user.stdout).toContain(tenant.length > 0 ? 'in tenant acme' : 'in tenant default');
      }
      const token = await admin(['token:create', '--email', 'ops@example.com', '--name', 'ci', '--tenant', 'acme']);
      expect(token.code, token.stderr).toBe(0);
      expect((await admin(['token:list', '--tenant', 'beta'])).stdout).toBe('No tokens.\n');

      const out = path.join(dir, 'acme-export.json');
      const exported = await admin(['catalog:export', '--tenant', 'acme', '--out', out]);
      expect(exported.code, exported.stderr).toBe(0);
      const text = await fs.readFile(out, 'utf8');
      expect(text).not.toContain('tenant');
      const { products } = JSON.parse(text) as { products: { sku: string; name: string }[] };
      expect(products.map((p) => [p.sku, p.name])).toEqual([['SHARED-1', 'Acme desk']]);
      const defaults = await admin(['catalog:export']);
      expect(JSON.parse(defaults.stdout)).toMatchObject({ products: [{ sku: 'SHARED-1', name: 'Default desk' }] });

      const [unknown, malformed] = [
        await admin(['catalog:export', '--tenant', 'nobody']),
        await admin(
          ['user:create', '--email', 'x@example.com', '--name', 'X', '--password-stdin', '--tenant', 'No!'],
          `${password}\n`,
        ),
      ];
      expectRefused(unknown, 1, "No tenant with slug 'nobody' (see tenant:list).");
      expectRefused(malformed, 2, "--tenant must be a tenant's slug");
    },
    SLOW,
  );
});

describe('admin tenant:delete', () => {
  it(
    "removes every row of the tenant in batches and none of another's, prints the counts; default stays while alone",
    async () => {
      // A catalogue of several batches (30 products of 86 rows each), a saved configuration, a throttle row.
      const seeded = await target.run('seed', ['--products', '30', '--seed', '3', '--tenant', 'acme']);
      expect(seeded.code, seeded.stderr).toBe(0);
      const before = await withOpen(async (db) => {
        await withTenant(acmeId, async () => {
          await sql`
            INSERT INTO configurations (id, product_id, selections, base_cents, total_cents, currency, product_updated_at)
            VALUES ('acmeConfig01', 1, '[]', 0, 0, 'EUR', now())`.execute(db);
          await sql`INSERT INTO login_throttle (key, hits, expires_at) VALUES ('k', 1, now() + interval '1 hour')`.execute(
            db,
          );
        });
        return { acme: await countRows(db, acmeId), default: await countRows(db, DEFAULT_TENANT_ID) };
      });
      expect(before.acme).toMatchObject({ products: 31, customisations: 1800, users: 1, configurations: 1 });

      expectRefused(await admin(['tenant:delete', '--slug', 'acme']), 2, 'pass --yes to confirm');
      const deleted = await admin(['tenant:delete', '--slug', 'acme', '--yes']);
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toMatch(new RegExp(`^Deleted tenant ${acmeId} 'acme' \\(Acme AG\\) from `));
      const printed = Object.fromEntries(
        [...deleted.stdout.matchAll(/^([a-z_]+) +(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
      );
      expect(printed).toEqual({ ...before.acme, tenant_hosts: 2 });

      const after = await withOpen(async (db) => ({
        acme: await countRows(db, acmeId),
        default: await countRows(db, DEFAULT_TENANT_ID),
        tenant: (await sql`SELECT 1 FROM tenants WHERE id = ${acmeId}`.execute(db)).rows.length,
        hosts: (await sql`SELECT 1 FROM tenant_hosts WHERE tenant_id = ${acmeId}`.execute(db)).rows.length,
      }));
      expect(Object.values(after.acme).every((n) => n === 0)).toBe(true);
      expect(after.default).toEqual(before.default);
      expect([after.tenant, after.hosts]).toEqual([0, 0]);
      expect(listed((await admin(['tenant:list'])).stdout, 'acme')).toBeUndefined();
      expectRefused(await admin(['tenant:delete', '--slug', 'acme', '--yes']), 1, "No tenant with slug 'acme'");

      // Default goes only while another tenant is left: here, once beta is gone, it is alone.
      expect((await admin(['tenant:delete', '--slug', 'beta', '--yes'])).code).toBe(0);
      expectRefused(
        await admin(['tenant:delete', '--slug', 'default', '--yes']),
        1,
        "The tenant 'default' is the only one: it cannot be deleted.",
      );
      expect(listed((await admin(['tenant:list'])).stdout, 'default')?.[3]).toBe('active');
    },
    SLOW,
  );
});
