import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { createCliTarget, type CliTarget } from '../support/cli.ts';

// admin catalog:export / catalog:import, run as processes against two databases of their own.

// Each CLI run starts Node, tsx and (embedded) the database: ~10–20 s apiece on a busy 2-vCPU machine.
const SLOW = 120_000;
let a: CliTarget;
let b: CliTarget;
/** For the tests of hostile files, migrated up front so that they run alone too. */
let c: CliTarget;
let dir: string;

const file = (name: string) => path.join(dir, name);
const write = (name: string, body: unknown) =>
  fs.writeFile(file(name), typeof body === 'string' ? body : JSON.stringify(body));

/**
 * Hand-written, skus out of order: names repeat across steps and components, positions repeat across steps.
 * desk-2 sets every configuration field and has rules (ends named where they name one customisation);
 * the others leave them to their defaults.
 */
const SOURCE = {
  products: [
    {
      sku: 'desk-2',
      name: 'Schreibtisch “Eiche” 🌳',
      basePrice: 49.5,
      currency: 'CHF',
      steps: [
        {
          order: 2,
          name: 'Finish',
          components: [
            {
              name: 'Top',
              position: 1,
              customisations: [
                { name: 'Oil', type: 'dropdown', price: 0 },
                { name: 'Wax', type: 'dropdown', price: 3 },
              ],
            },
          ],
        },
        {
          order: 1,
          name: 'Size',
          required: true,
          components: [
            {
              name: 'Top',
              position: 1,
              minSelections: 1,
              maxSelections: null,
              customisations: [
                { name: 'Large', type: 'dropdown', price: 1999.99, priceMode: 'REPLACE_BASE' },
                { name: 'Small', type: 'dropdown', price: 0.5, priceMode: 'REPLACE_BASE' },
              ],
            },
            {
              name: 'Legs',
              position: 1,
              maxSelections: 3,
              customisations: [{ name: 'Large', type: 'dropdown', price: 10 }],
            },
          ],
        },
      ],
      rules: [
        {
          kind: 'EXCLUDES',
          customisation: { stepOrder: 2, componentPosition: 1, name: 'Wax' },
          other: { stepOrder: 2, componentPosition: 1, name: 'Oil' },
          message: 'Oil or wax, not both.',
        },
        {
          kind: 'REQUIRES',
          customisation: { stepOrder: 2, componentPosition: 1, name: 'Oil' },
          other: { stepOrder: 1, componentPosition: 1, name: 'Small' },
        },
      ],
    },
    { sku: 'Chair-1', name: 'Chair', steps: [] },
    {
      sku: 'cabinet.3',
      name: 'Cabinet',
      steps: [
        {
          order: 0,
          name: 'Only',
          components: [
            { name: 'Door', position: 1000000, customisations: [{ name: 'Max', type: 't', price: 9999999999.99 }] },
          ],
        },
      ],
    },
  ],
};

async function rows(target: CliTarget) {
  const handle = await target.open();
  try {
    const out: Record<string, unknown[]> = {};
    for (const table of ['products', 'steps', 'components', 'customisations', 'configuration_rules']) {
      // The commands' default tenant: outside any, row-level security shows no rows.
      const read = sql`SELECT * FROM ${sql.table(table)} ORDER BY id`;
      out[table] = (await withTenant(DEFAULT_TENANT_ID, () => read.execute(handle.db))).rows;
    }
    return out;
  } finally {
    await handle.close();
  }
}

beforeAll(async () => {
  [a, b, c] = await Promise.all([createCliTarget(), createCliTarget(), createCliTarget()]);
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-transfer-'));
  const migrated = await c.run('migrate', []);
  if (migrated.code !== 0) throw new Error(migrated.stderr);
});
afterAll(async () => {
  await Promise.all([a?.drop(), b?.drop(), c?.drop()]);
  await fs.rm(dir, { recursive: true, force: true });
});

describe('catalog:export and catalog:import', () => {
  it(
    'round-trips byte for byte: export, import into an empty database, export',
    async () => {
      await write('source.json', SOURCE);
      const imported = await a.run('admin', ['catalog:import', file('source.json')]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toBe('created 3, updated 0, unchanged 0, failed 0.\n');
      // No terminal, no progress bar.
      expect(imported.stderr).not.toContain('importing [');

      expect((await a.run('admin', ['catalog:export', '--out', file('a.json')])).code).toBe(0);
      const exported = await fs.readFile(file('a.json'), 'utf8');
      const lines = exported.split('\n');
      expect(lines[0]).toBe('{"products":[');
      expect(lines.at(-2)).toBe(']}');
      // Byte order of sku; keys in input order; steps by order, components by position.
      expect(JSON.parse(exported).products.map((p: { sku: string }) => p.sku)).toEqual([
        'Chair-1',
        'cabinet.3',
        'desk-2',
      ]);
      expect(lines[3]).toMatch(
        /^\{"sku":"desk-2","name":"Schreibtisch “Eiche” 🌳","basePrice":49\.5,"currency":"CHF","steps":\[\{"name":"Size","order":1,"required":true,"components":\[\{"name":"Top","position":1,"minSelections":1,"maxSelections":null,"customisations":\[\{"name":"Large","type":"dropdown","price":1999\.99,"priceMode":"REPLACE_BASE"\}/,
      );
      // Every field, defaults included, and the rules by id with their ends as CustomisationRefs.
      expect(lines[1]).toBe('{"sku":"Chair-1","name":"Chair","basePrice":0,"currency":"EUR","steps":[],"rules":[]},');
      expect(lines[3]).toMatch(
        /,"rules":\[\{"kind":"EXCLUDES","customisation":\{"stepOrder":2,"componentPosition":1,"name":"Wax"\},"other":\{"stepOrder":2,"componentPosition":1,"name":"Oil"\},"message":"Oil or wax, not both\."\},\{"kind":"REQUIRES","customisation":\{"stepOrder":2,"componentPosition":1,"name":"Oil"\},"other":\{"stepOrder":1,"componentPosition":1,"name":"Small"\},"message":null\}\]\}$/,
      );
      expect(exported).toContain('"price":9999999999.99');
      expect(exported).toContain('"price":0.5');

      const into = await b.run('admin', ['catalog:import', file('a.json')]);
      expect(into.stdout).toBe('created 3, updated 0, unchanged 0, failed 0.\n');
      const again = await b.run('admin', ['catalog:export']);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(exported);
    },
    SLOW,
  );

  it(
    'round-trips byte for byte with rule ids crossing 9 → 10: rules export in id order, by number',
    async () => {
      // Twelve rules on one product: ids 1 to 12 in the first database, and again in the second.
      const ref = (i: number) => ({ stepOrder: 1, componentPosition: 1, name: `Option ${i}` });
      const rules = Array.from({ length: 12 }, (_, i) => ({
        kind: i % 2 === 0 ? 'REQUIRES' : 'EXCLUDES',
        customisation: ref(i),
        other: ref((i + 1) % 12),
        message: `Rule ${i + 1}`,
      }));
      const product = {
        sku: 'RULED-1',
        name: 'Twelve rules',
        steps: [
          {
            name: 'Options',
            order: 1,
            components: [
              {
                name: 'Any',
                position: 1,
                maxSelections: null,
                customisations: Array.from({ length: 12 }, (_, i) => ({
                  name: `Option ${i}`,
                  type: 'colour',
                  price: i,
                })),
              },
            ],
          },
        ],
        rules,
      };
      await write('ruled.json', { products: [product] });
      const [source, target] = await Promise.all([createCliTarget(), createCliTarget()]);
      try {
        expect((await source.run('admin', ['catalog:import', file('ruled.json')])).code).toBe(0);
        const first = await source.run('admin', ['catalog:export']);
        expect(first.code, first.stderr).toBe(0);
        expect(JSON.parse(first.stdout).products[0].rules.map((r: { message: string }) => r.message)).toEqual(
          rules.map((r) => r.message),
        );
        await fs.writeFile(file('ruled-export.json'), first.stdout);
        expect((await target.run('admin', ['catalog:import', file('ruled-export.json')])).code).toBe(0);
        const second = await target.run('admin', ['catalog:export']);
        expect(second.code, second.stderr).toBe(0);
        expect(second.stdout).toBe(first.stdout);
      } finally {
        await Promise.all([source.drop(), target.drop()]);
      }
    },
    2 * SLOW,
  );

  it(
    'imports the same file again as unchanged, writing nothing; a changed price updates one product',
    async () => {
      const before = await rows(b);
      const same = await b.run('admin', ['catalog:import', file('a.json')]);
      expect(same.stdout).toBe('created 0, updated 0, unchanged 3, failed 0.\n');
      expect(await rows(b)).toEqual(before);

      await fs.writeFile(
        file('changed.json'),
        (await fs.readFile(file('a.json'), 'utf8')).replace('"price":1999.99', '"price":1899'),
      );
      const changed = await b.run('admin', ['catalog:import', file('changed.json')]);
      expect(changed.stdout).toBe('created 0, updated 1, unchanged 2, failed 0.\n');
    },
    SLOW,
  );

  it(
    '--dry-run says what would happen and writes nothing',
    async () => {
      const before = await rows(b);
      await write('new.json', { products: [{ sku: 'NEW-1', name: 'New', steps: [] }, SOURCE.products[1]] });
      const dry = await b.run('admin', ['catalog:import', file('new.json'), '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toBe('Dry run, nothing written: would have created 1, updated 0, unchanged 1, failed 0.\n');
      expect(await rows(b)).toEqual(before);
    },
    SLOW,
  );

  it(
    'imports the valid products of a file with invalid ones, reports each failure with its path, exits 1',
    async () => {
      const before = (await rows(b)).products!.length;
      await write('mixed.json', {
        products: [
          { sku: 'OK-1', name: 'Fine', steps: [] },
          {
            sku: 'BAD-1',
            name: 'Price',
            steps: [
              {
                name: 'S',
                order: 1,
                components: [{ name: 'C', position: 1, customisations: [{ name: 'X', type: 't', price: 0.295 }] }],
              },
            ],
          },
          { sku: 'BAD-2', name: '   ', steps: [] },
          {
            sku: 'BAD-3',
            name: 'Text price',
            steps: [
              {
                name: 'S',
                order: 1,
                components: [{ name: 'C', position: 1, customisations: [{ name: 'X', type: 't', price: '1.00' }] }],
              },
            ],
          },
          { sku: 'OK-1', name: 'Twice', steps: [] },
          'not a product',
        ],
      });
      const mixed = await b.run('admin', ['catalog:import', file('mixed.json')]);
      expect(mixed.code).toBe(1);
      expect(mixed.stdout).toContain('created 1, updated 0, unchanged 0, failed 5.');
      expect(mixed.stdout).toContain(
        'products.1.steps.0.components.0.customisations.0.price: The price must have at most 2 decimals.',
      );
      expect(mixed.stdout).toContain('products.2.name: The name field is required.');
      expect(mixed.stdout).toMatch(
        /products\.3\.steps\.0\.components\.0\.customisations\.0\.price: Float cannot represent non numeric value: "1\.00"/,
      );
      expect(mixed.stdout).toContain('products.4.sku: The sku appears earlier in the file (products.0).');
      expect(mixed.stdout).toContain('products.5: Each product must be an object.');
      expect((await rows(b)).products!.length).toBe(before + 1);
    },
    SLOW,
  );

  it(
    'refuses an unreadable or malformed file with exit 2, writing nothing',
    async () => {
      const before = await rows(b);
      await write('broken.json', '{"products": [');
      await write('shape.json', { items: [] });
      await write('array.json', []);
      for (const [name, message] of [
        ['broken.json', 'is not valid JSON'],
        ['shape.json', 'must hold a JSON object {"products": [...]}'],
        ['array.json', 'must hold a JSON object {"products": [...]}'],
        ['missing.json', 'Cannot read'],
      ]) {
        const res = await b.run('admin', ['catalog:import', file(name!)]);
        expect(res.code, name).toBe(2);
        expect(res.stderr).toContain(message);
      }
      expect((await b.run('admin', ['catalog:import'])).code).toBe(2);
      expect(await rows(b)).toEqual(before);
    },
    SLOW,
  );

  it(
    'finishes the import whatever one entry holds: each fails on its own, with a reason, in file order',
    async () => {
      await write('hostile.json', {
        products: [
          { sku: 'OK-A', name: 'Fine A', steps: [] },
          // Valid JSON and valid input, but PostgreSQL text cannot hold it: the database refuses that product.
          { sku: 'NUL-1', name: 'a\u0000b', steps: [] },
          null,
          { sku: 'D-9', name: 'First', steps: [] },
          { sku: ' D-9 ', name: 'Second', steps: [] },
          { sku: 'D-9\t', name: 'Third', steps: [] },
          // Refused by its length while the file is read, never decoded into a 5 MB string.
          { sku: 'BIG-1', name: 'x'.repeat(5_000_000), steps: [] },
          { sku: 'OK-B', name: 'Fine B', steps: [] },
        ],
      });
      const res = await c.run('admin', ['catalog:import', file('hostile.json')]);
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toBe('');
      const lines = res.stdout.split('\n');
      expect(lines.slice(0, 3)).toEqual([
        'created 3, updated 0, unchanged 0, failed 5.',
        'products.1 (sku "NUL-1"):',
        expect.stringMatching(/^ {2}products\.1(\.name)?: .*(0x00|NUL|null character)/i),
      ]);
      expect(lines.slice(3)).toEqual([
        'products.2:',
        '  products.2: Each product must be an object.',
        'products.4 (sku " D-9 "):',
        '  products.4.sku: The sku appears earlier in the file (products.3).',
        'products.5 (sku "D-9\\t"):',
        '  products.5.sku: The sku appears earlier in the file (products.3).',
        'products.6 (sku "BIG-1"):',
        '  products.6.name: The name must not be greater than 12002 bytes in an import file (it has 5000000).',
        '',
      ]);
      const products = (await rows(c)).products as { sku: string; name: string }[];
      // Ids follow the order the products committed in, which several connections make vary: compare by sku.
      expect(products.map((p) => [p.sku, p.name]).sort()).toEqual([
        ['D-9', 'First'],
        ['OK-A', 'Fine A'],
        ['OK-B', 'Fine B'],
      ]);
    },
    SLOW,
  );

  it(
    'refuses a file that is not JSON or not {"products": [...]} before writing anything, saying where',
    async () => {
      const before = await rows(c);
      // The first product is fine: the whole file is checked before the first write.
      const good = '{"sku":"LATE-1","name":"Late","steps":[]}';
      const truncated = `{"products": [${good}, {"sku": "X"`;
      const colon = `{"products": [${good}, {"sku" "X"}]}`;
      const trailing = `{"products": [${good}]} {}`;
      for (const [body, message] of [
        [truncated, `is not valid JSON: Unexpected end of the file at byte ${truncated.length}.`],
        [colon, `is not valid JSON: Expected ":", found """ at byte ${colon.lastIndexOf('"X"')}.`],
        [
          trailing,
          `is not valid JSON: Unexpected "{" after the end of the JSON value at byte ${trailing.lastIndexOf('{')}.`,
        ],
        [`{"products": [${good}], "products": []}`, 'must hold a JSON object {"products": [...]}.'],
      ] as const) {
        await write('bad.json', body);
        const res = await c.run('admin', ['catalog:import', file('bad.json')]);
        expect(res.code, body).toBe(2);
        expect(res.stderr, body).toBe(`Error: ${file('bad.json')} ${message}\n`);
        expect(res.stdout).toBe('');
      }
      expect(await rows(c)).toEqual(before);
    },
    2 * SLOW,
  );

  it(
    'stops with exit 75 and a clear message when the database is unavailable',
    async () => {
      await write('one.json', { products: [{ sku: 'ONE-1', name: 'One', steps: [] }] });
      const res = await c.run('admin', ['catalog:import', file('one.json')], {
        env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' },
      });
      expect(res.code).toBe(75);
      expect(res.stderr).toMatch(
        /^Error: The database is unavailable \(.*ECONNREFUSED.*\); the import stopped\. Run it again when the database is back\.\n$/,
      );
    },
    SLOW,
  );
});
