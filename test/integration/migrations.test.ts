import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPGliteDatabase,
  createPostgresDatabase,
  PGLITE_OPTIONS,
  type DatabaseHandle,
} from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { hasPendingMigrations, migrateToLatest } from '../../src/platform/migrate.ts';
import { createScratchDatabase } from '../support/scratch-database.ts';

const url = process.env.DATABASE_URL;
const logger = createLogger('silent');

/** A brand-new, never-migrated database on the back end under test. */
async function emptyDatabase(): Promise<{ open(): Promise<DatabaseHandle>; drop(): Promise<void> }> {
  if (url) {
    const scratch = await createScratchDatabase(url, `pcs_migrate_${randomBytes(4).toString('hex')}`);
    const handles: DatabaseHandle[] = [];
    return {
      async open() {
        const handle = createPostgresDatabase({ databaseUrl: scratch.url, poolSize: 2, logger });
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

  it('index every foreign-key column', async () => {
    const { rows } = await sql<{ table: string; column: string; indexed: boolean }>`
      SELECT c.conrelid::regclass::text AS table, a.attname AS column,
        EXISTS (
          SELECT 1 FROM pg_index i
          WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1]
        ) AS indexed
      FROM pg_constraint c
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f'
    `.execute(handle.db);
    expect(rows.map((r) => `${r.table}.${r.column}`).sort()).toEqual([
      'components.step_id',
      'customisations.component_id',
      'personal_access_tokens.parent_id',
      'personal_access_tokens.user_id',
      'steps.product_id',
    ]);
    for (const row of rows) expect(row.indexed, `${row.table}.${row.column}`).toBe(true);
  });

  it('enforce the data rules of the model', async () => {
    const db = handle.db;
    const product = await db.insertInto('products').values({ name: 'P', sku: 'RULES-1' }).returning('id').executeTakeFirstOrThrow();
    await expect(db.insertInto('products').values({ name: 'Q', sku: 'RULES-1' }).execute()).rejects.toThrow();
    const step = await db
      .insertInto('steps')
      .values({ product_id: product.id, name: 'S', order: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await expect(db.insertInto('steps').values({ product_id: product.id, name: 'T', order: 1 }).execute()).rejects.toThrow();
    const component = await db
      .insertInto('components')
      .values({ step_id: step.id, name: 'C', position: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await expect(
      db.insertInto('customisations').values({ component_id: component.id, name: 'X', type: 'text', price: '-0.01' }).execute(),
    ).rejects.toThrow();
    await db.insertInto('customisations').values({ component_id: component.id, name: 'X', type: 'text', price: '0.29' }).execute();
    await expect(
      db.insertInto('users').values({ name: 'U', email: 'Upper@Example.com', password_hash: 'x' }).execute(),
    ).rejects.toThrow();

    // Deleting a product takes its whole tree with it.
    await db.deleteFrom('products').where('id', '=', product.id).execute();
    for (const table of ['steps', 'components', 'customisations'] as const) {
      const { n } = await db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      expect(Number(n), table).toBe(0);
    }
  });
});
