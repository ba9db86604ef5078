import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Migrator, sql, type Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPGliteDatabase,
  createPostgresDatabase,
  PGLITE_OPTIONS,
  type DatabaseHandle,
} from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { hasPendingMigrations, migrateToLatest, MIGRATIONS_DIR } from '../../src/platform/migrate.ts';
import { createScratchDatabase, ensureServiceRole } from '../../scripts/lib/scratch-database.ts';
import { actOutsideTenantsAs, DEFAULT_TENANT_ID } from '../../src/platform/tenancy.ts';

const url = process.env.DATABASE_URL;
const logger = createLogger('silent');
// The checks below write the default tenant's rows directly.
actOutsideTenantsAs(DEFAULT_TENANT_ID);

/** A brand-new, never-migrated database on the back end under test. */
async function emptyDatabase(): Promise<{ open(): Promise<DatabaseHandle>; drop(): Promise<void> }> {
  if (url) {
    // As deployed: an ordinary role owning the database migrates it.
    await ensureServiceRole(url, 'pcs_test_service');
    const scratch = await createScratchDatabase(url, `pcs_migrate_${randomBytes(4).toString('hex')}`, {
      owner: 'pcs_test_service',
    });
    const handles: DatabaseHandle[] = [];
    return {
      async open() {
        // No statement timeout, as the service's own migration connection: one migrator waits for the other.
        const handle = createPostgresDatabase({ databaseUrl: scratch.url, poolSize: 2, logger, statementTimeoutMs: 0 });
        handles.push(handle);
        return handle;
      },
      async drop() {
        await Promise.all(handles.map((h) => h.close()));
        await scratch.drop();
      },
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const handle = await createPGliteDatabase(await PGlite.create(PGLITE_OPTIONS));
  return { open: async () => handle, drop: () => handle.close() };
}

describe('migrations', () => {
  let database: Awaited<ReturnType<typeof emptyDatabase>>;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await emptyDatabase();
    handle = await database.open();
  });
  afterAll(() => database?.drop());

  it('apply once even when two processes start at the same moment, and again is a no-op', async () => {
    expect(await hasPendingMigrations(handle.db)).toBe(true);
    const other = await database.open();
    const [a, b] = await Promise.all([migrateToLatest(handle.db), migrateToLatest(other.db)]);
    const applied = [...(a.results ?? []), ...(b.results ?? [])].filter((r) => r.status === 'Success');
    const names = applied.map((r) => r.migrationName);
    expect(new Set(names).size).toBe(names.length);
    expect(await hasPendingMigrations(handle.db)).toBe(false);
    const again = await migrateToLatest(handle.db);
    expect(again.results).toEqual([]);
  });

  it('index every foreign key by its columns, tenant first', async () => {
    const { rows: keys } = await sql<{ table: string; columns: string[] }>`
      SELECT c.conrelid::regclass::text AS table,
        array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
              JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o)::text[] AS columns
      FROM pg_constraint c
      WHERE c.contype = 'f' AND c.confrelid <> 'tenants'::regclass
    `.execute(handle.db);
    const { rows: indexes } = await sql<{ table: string; columns: string[] }>`
      SELECT i.indrelid::regclass::text AS table,
        array(SELECT coalesce(a.attname, '(expression)') FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o)
              LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o)::text[] AS columns
      FROM pg_index i
    `.execute(handle.db);
    expect(keys.map((r) => `${r.table}.${r.columns.join('+')}`).sort()).toEqual([
      'components.tenant_id+step_id',
      'configuration_rules.tenant_id+customisation_id',
      'configuration_rules.tenant_id+other_customisation_id',
      'configuration_rules.tenant_id+product_id',
      'configurations.tenant_id+user_id',
      'customisations.tenant_id+component_id',
      'personal_access_tokens.tenant_id+parent_id',
      'personal_access_tokens.tenant_id+user_id',
      'steps.tenant_id+product_id',
    ]);
    for (const key of keys) {
      const indexed = indexes.some(
        (i) => i.table === key.table && key.columns.every((column, n) => i.columns[n] === column),
      );
      expect(indexed, `${key.table}.${key.columns.join('+')}`).toBe(true);
    }
  });

  it('enforce the data rules of the model', async () => {
    const db = handle.db;
    const product = await db
      .insertInto('products')
      .values({ name: 'P', sku: 'RULES-1' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await expect(db.insertInto('products').values({ name: 'Q', sku: 'RULES-1' }).execute()).rejects.toThrow();
    const step = await db
      .insertInto('steps')
      .values({ product_id: product.id, name: 'S', order: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await expect(
      db.insertInto('steps').values({ product_id: product.id, name: 'T', order: 1 }).execute(),
    ).rejects.toThrow();
    const component = await db
      .insertInto('components')
      .values({ step_id: step.id, name: 'C', position: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await expect(
      db
        .insertInto('customisations')
        .values({ component_id: component.id, name: 'X', type: 'text', price: '-0.01' })
        .execute(),
    ).rejects.toThrow();
    await db
      .insertInto('customisations')
      .values({ component_id: component.id, name: 'X', type: 'text', price: '0.29' })
      .execute();
    await expect(
      db.insertInto('users').values({ name: 'U', email: 'Upper@Example.com', password_hash: 'x' }).execute(),
    ).rejects.toThrow();

    // Deleting a product takes its whole tree with it.
    await db.deleteFrom('products').where('id', '=', product.id).execute();
    for (const table of ['steps', 'components', 'customisations'] as const) {
      const { n } = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n), table).toBe(0);
    }
  });
  it('configuration data: defaults, bounds, one rule per pair (EXCLUDES either way round), rules touch the product', async () => {
    const db = handle.db;
    const one = async <T>(q: ReturnType<typeof sql<T>>) => (await q.execute(db)).rows[0]!;
    const p = await one<{ id: string; base_price: string; currency: string; updated_at: Date }>(
      sql`INSERT INTO products (name, sku) VALUES ('P', 'CONF-1') RETURNING id, base_price, currency, updated_at`,
    );
    expect([p.base_price, p.currency]).toEqual(['0.00', 'EUR']);
    const s = await one<{ id: string; required: boolean }>(
      sql`INSERT INTO steps (product_id, name, "order") VALUES (${p.id}, 'S', 1) RETURNING id, required`,
    );
    expect(s.required).toBe(false);
    const c = await one<{ id: string; min_selections: number; max_selections: number | null }>(
      sql`INSERT INTO components (step_id, name, position) VALUES (${s.id}, 'C', 1) RETURNING id, min_selections, max_selections`,
    );
    expect([c.min_selections, c.max_selections]).toEqual([0, 1]);
    await expect(
      sql`UPDATE components SET min_selections = 2, max_selections = 1 WHERE id = ${c.id}`.execute(db),
    ).rejects.toThrow();
    await sql`UPDATE components SET min_selections = 2, max_selections = NULL WHERE id = ${c.id}`.execute(db);
    await expect(sql`UPDATE products SET base_price = -1 WHERE id = ${p.id}`.execute(db)).rejects.toThrow();
    const [a, b] = (
      await sql<{ id: string; price_mode: string }>`
        INSERT INTO customisations (component_id, name, type, price) VALUES (${c.id}, 'A', 'colour', 1), (${c.id}, 'B', 'colour', 2)
        RETURNING id, price_mode`.execute(db)
    ).rows;
    expect(a!.price_mode).toBe('ADD');
    await expect(
      sql`UPDATE customisations SET price_mode = 'MULTIPLY' WHERE id = ${a!.id}`.execute(db),
    ).rejects.toThrow();

    const before = (await one<{ updated_at: Date }>(sql`SELECT updated_at FROM products WHERE id = ${p.id}`))
      .updated_at;
    const rule = (kind: string, x: string, y: string) =>
      sql`INSERT INTO configuration_rules (product_id, kind, customisation_id, other_customisation_id) VALUES (${p.id}, ${kind}, ${x}, ${y})`.execute(
        db,
      );
    await rule('EXCLUDES', a!.id, b!.id);
    await expect(rule('EXCLUDES', b!.id, a!.id)).rejects.toThrow();
    await rule('REQUIRES', a!.id, b!.id);
    await rule('REQUIRES', b!.id, a!.id);
    await expect(rule('REQUIRES', a!.id, b!.id)).rejects.toThrow();
    await expect(rule('REQUIRES', a!.id, a!.id)).rejects.toThrow();
    const after = (await one<{ updated_at: Date }>(sql`SELECT updated_at FROM products WHERE id = ${p.id}`)).updated_at;
    expect(after.getTime()).toBeGreaterThan(before.getTime());

    // Deleting an end deletes its rules; a saved configuration outlives its product.
    await sql`DELETE FROM customisations WHERE id = ${b!.id}`.execute(db);
    expect((await one<{ n: string }>(sql`SELECT count(*) AS n FROM configuration_rules`)).n).toBe('0');
    await sql`
      INSERT INTO configurations (id, product_id, selections, base_cents, total_cents, currency, product_updated_at)
      VALUES ('abcDEF123456', ${p.id}, '[]', 0, 0, 'EUR', now())`.execute(db);
    await expect(
      sql`INSERT INTO configurations (id, product_id, selections, base_cents, total_cents, currency, product_updated_at)
          VALUES ('short', ${p.id}, '[]', 0, 0, 'EUR', now())`.execute(db),
    ).rejects.toThrow();
    await sql`DELETE FROM products WHERE id = ${p.id}`.execute(db);
    expect((await one<{ n: string }>(sql`SELECT count(*) AS n FROM configurations`)).n).toBe('1');
  });
});

describe('migration 0020 on a database where children were moved before it', () => {
  let database: Awaited<ReturnType<typeof emptyDatabase>>;
  afterAll(() => database?.drop());

  it('recounts the products whose counts drifted, and stamps them so that syncs fetch them again', async () => {
    database = await emptyDatabase();
    const { db } = await database.open();
    const migrations: Record<string, Migration> = {};
    for (const file of (await fs.readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.ts')).sort())
      migrations[file.replace(/\.ts$/, '')] = await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href);
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('2026_11_26_0019_targeted_changes')).error).toBeUndefined();

    const ids: string[] = [];
    for (const sku of ['DRIFT-A', 'DRIFT-B', 'DRIFT-C']) {
      const { rows } = await sql<{ id: string }>`
        WITH p AS (INSERT INTO products (name, sku) VALUES (${sku}, ${sku}) RETURNING id),
        s AS (INSERT INTO steps (product_id, name, "order") SELECT p.id, 'S' || n, n FROM p, generate_series(1, 2) n RETURNING id),
        c AS (INSERT INTO components (step_id, name, position) SELECT s.id, 'C', 1 FROM s RETURNING id)
        INSERT INTO customisations (component_id, name, type, price) SELECT c.id, 'X', 'colour', 1 FROM c
        RETURNING (SELECT id FROM p)`.execute(db);
      ids.push(rows[0]!.id);
    }
    const [a, b, c] = ids as [string, string, string];
    const state = async () =>
      (
        await sql<{ id: string; counts: string; updated_at: Date }>`
          SELECT id, concat_ws('/', step_count, component_count, customisation_count) AS counts, updated_at
          FROM products ORDER BY id`.execute(db)
      ).rows;
    // Moved under 0019's triggers: A's counts and updated_at stay as they were, B's counts too.
    await sql`UPDATE steps SET product_id = ${b}, "order" = 3 WHERE product_id = ${a} AND "order" = 1`.execute(db);
    const drifted = await state();
    expect(drifted.map((r) => r.counts)).toEqual(['2/2/2', '2/2/2', '2/2/2']);

    await migrateToLatest(db);
    const repaired = await state();
    expect(repaired.map((r) => r.counts)).toEqual(['1/1/1', '3/3/3', '2/2/2']);
    expect(repaired[0]!.updated_at.getTime()).toBeGreaterThan(drifted[0]!.updated_at.getTime());
    expect(repaired[1]!.updated_at.getTime()).toBeGreaterThan(drifted[1]!.updated_at.getTime());
    expect(repaired[2]!.updated_at.getTime()).toBe(drifted[2]!.updated_at.getTime());
    expect(repaired.map((r) => r.id)).toEqual([a, b, c]);
  });
});
