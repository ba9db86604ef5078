import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIGURABLE_DEMO_PRODUCTS, DEMO_DESK_SKU, seedConfigurableProducts } from '../../db/seeds/configurable.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens } from '../support/catalog-writes.ts';

// Selection values are what a customer typed (an engraving, a gift note): they are never logged, on
// any path (checked, refused, malformed, saved, throttled, read back, failed inside the service), at
// the most verbose level.

const VALUE = 'Für-Anna-CustomerText-91e2';
const CONFIGURE = `query ($p: ID!, $s: [SelectionInput!]!) { configure(productId: $p, selections: $s) { valid violations { code message } price { total { amount } } } }`;
const SAVE = `mutation ($p: ID!, $s: [SelectionInput!]!) { saveConfiguration(productId: $p, selections: $s) { id selections { value } } }`;
const READ = `query ($id: ID!) { configuration(id: $id) { id selections { value } } }`;

let t: TestApp;
let user: string;
let desk: { id: string; ids: Map<string, string> };

beforeAll(async () => {
  t = await startTestApp({ env: { LOG_LEVEL: 'trace', CONFIGURATION_SAVES_PER_MINUTE: '3' } });
  ({ user } = await adminAndUserTokens(t));
  const db = t.database.handle.db;
  const product = CONFIGURABLE_DEMO_PRODUCTS.find((p) => p.sku === DEMO_DESK_SKU)!;
  await seedConfigurableProducts(db, [{ ...product, sku: 'LOG-DESK' }]);
  const { id } = await db.selectFrom('products').select('id').where('sku', '=', 'LOG-DESK').executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('customisations as x')
    .innerJoin('components as c', 'c.id', 'x.component_id')
    .innerJoin('steps as s', 's.id', 'c.step_id')
    .where('s.product_id', '=', id)
    .select(['x.id', 'x.name'])
    .execute();
  desk = { id, ids: new Map(rows.map((r) => [r.name, r.id])) };
});
afterAll(() => t.close());

const pick = (name: string, value?: string) => ({
  customisationId: desk.ids.get(name)!,
  ...(value === undefined ? {} : { value }),
});

describe('customer text in the logs', () => {
  it('never appears, whatever happens to the request', async () => {
    const mark = t.logs.lines.length;
    const valid = [pick('160 x 80 cm'), pick('Brass plaque', VALUE), pick('Engraved text', VALUE)];

    // Checked: a valid selection, and one that breaks rules (the value rides along on a violation's customisation).
    const ok = await t.graphql(CONFIGURE, { token: user, variables: { p: desk.id, s: valid } });
    expect(ok.body.data.configure.valid).toBe(true);
    const broken = await t.graphql(CONFIGURE, {
      token: user,
      variables: { p: desk.id, s: [pick('Engraved text', VALUE), pick('Engraved text', VALUE)] },
    });
    expect(broken.body.data.configure.violations.map((v: { code: string }) => v.code)).toEqual(
      expect.arrayContaining(['STEP_REQUIRED', 'DUPLICATE_SELECTION', 'REQUIRES']),
    );
    // A value over 1,000 characters is a violation; over 1,000 selections, a refused request.
    const long = `${VALUE}${'x'.repeat(1_000)}`;
    const tooLong = await t.graphql(CONFIGURE, {
      token: user,
      variables: { p: desk.id, s: [pick('Engraved text', long)] },
    });
    expect(tooLong.body.data.configure.violations.map((v: { code: string }) => v.code)).toContain('VALUE_TOO_LONG');
    const tooMany = Array.from({ length: 1_001 }, () => pick('Engraved text', VALUE));
    const malformed = await t.graphql(CONFIGURE, { token: user, variables: { p: desk.id, s: tooMany } });
    expect(malformed.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

    // Refused save (violations), then saved, read back, and throttled.
    const refused = await t.graphql(SAVE, {
      token: user,
      variables: { p: desk.id, s: [pick('Engraved text', VALUE)] },
    });
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const saved = await t.graphql(SAVE, { token: user, variables: { p: desk.id, s: valid } });
    expect(saved.body.errors).toBeUndefined();
    expect(saved.body.data.saveConfiguration.selections.map((s: { value: string | null }) => s.value)).toContain(VALUE);
    const read = await t.graphql(READ, { token: user, variables: { id: saved.body.data.saveConfiguration.id } });
    expect(read.body.data.configuration.selections.map((s: { value: string | null }) => s.value)).toContain(VALUE);
    let throttled = 0;
    for (let i = 0; i < 4; i++)
      if ((await t.graphql(SAVE, { token: user, variables: { p: desk.id, s: valid } })).status === 429) throttled++;
    expect(throttled).toBeGreaterThan(0);

    const lines = t.logs.lines.slice(mark);
    // The operations were logged (trace and debug included), just not the customer's words.
    expect(lines.length).toBeGreaterThan(5);
    expect(t.logs.text).toContain('configuration saved');
    expect(lines.filter((l) => l.includes('CustomerText'))).toEqual([]);
  });

  it('never appears when the database refuses the saved row and the service logs the failure', async () => {
    const db = t.database.handle.db;
    const other = await t.createUser();
    const token = await t.login(other.email, other.password);
    // PostgreSQL's check violation quotes the failing row, selections included, in its detail.
    await sql`ALTER TABLE configurations ADD CONSTRAINT configurations_log_probe CHECK (total_cents < 0) NOT VALID`.execute(
      db,
    );
    const mark = t.logs.lines.length;
    try {
      const res = await t.graphql(SAVE, {
        token,
        variables: { p: desk.id, s: [pick('200 x 90 cm'), pick('Brass plaque'), pick('Engraved text', VALUE)] },
      });
      expect(res.body.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(res.body)).not.toContain('CustomerText');
    } finally {
      await sql`ALTER TABLE configurations DROP CONSTRAINT configurations_log_probe`.execute(db);
    }
    const lines = t.logs.lines.slice(mark);
    expect(lines.some((l) => (JSON.parse(l) as { level: number }).level >= 50)).toBe(true);
    expect(lines.filter((l) => l.includes('CustomerText'))).toEqual([]);
  });
});
