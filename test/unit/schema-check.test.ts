import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema } from '../../scripts/check-schema.ts';
import { serviceSchema } from '../../src/modules/index.ts';
import { printSchemaFile, RELEASED_SCHEMA_FILE } from '../../src/graphql/sdl.ts';

const released = () => fs.readFileSync(RELEASED_SCHEMA_FILE, 'utf8');
const current = () => printSchemaFile(serviceSchema());

describe('the schema check', () => {
  it('finds no breaking change between the released baseline and the current schema', async () => {
    const { breaking, report } = await checkSchema(released(), current(), 'release/schema.graphql');
    expect(report).toContain('No breaking change against release/schema.graphql');
    expect(breaking).toBe(0);
  });

  it('names each removed or retyped field a released client may use', async () => {
    // Product's own sku and Customisation's own price, not the input types' fields of the same names.
    const retype = (sdl: string, type: string, from: string, to: string) =>
      sdl.replace(new RegExp(`(type ${type} [^{]*\\{[^}]*?)${from}`), `$1${to}`);
    const broken = retype(
      retype(current(), 'Product', '  sku: String!', '  code: String!'),
      'Customisation',
      'price: Float!',
      'price: String!',
    );
    const { breaking, report } = await checkSchema(current(), broken, 'the release');
    expect(report).toContain("BREAKING   Field 'sku' was removed from object type 'Product'");
    expect(report).toMatch(/BREAKING {3}Field 'Customisation.price' changed type from 'Float!' to 'String!'/);
    expect(report).toContain('2 breaking change(s) against the release');
    expect(breaking).toBe(2);
  });

  it('lets additions through: a new nullable field is not breaking', async () => {
    const added = current().replace('type Product {', 'type Product {\n  """Colour."""\n  colour: String');
    const { breaking, report } = await checkSchema(current(), added, 'the release');
    expect(report).toContain("Field 'colour' was added to object type 'Product'");
    expect(breaking).toBe(0);
  });
});

// The command as CI runs it: its exit status is what fails the build.
describe('npm run schema:check', () => {
  const run = promisify(execFile);
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-check-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function schemaCheck(...args: string[]): Promise<{ code: number; output: string }> {
    try {
      const { stdout, stderr } = await run('npm', ['run', '--silent', 'schema:check', '--', ...args]);
      return { code: 0, output: stdout + stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, output: e.stdout + e.stderr };
    }
  }

  it('exits 0 on the current schema', { timeout: 120_000 }, async () => {
    const { code, output } = await schemaCheck();
    expect(output).toContain('No breaking change against release/schema.graphql');
    expect(code).toBe(0);
  });

  it(
    'exits 1 and prints the change when the baseline has a field the schema dropped',
    { timeout: 120_000 },
    async () => {
      const baseline = path.join(dir, 'baseline.graphql');
      fs.writeFileSync(baseline, released().replace('type Product {', 'type Product {\n  colour: String!'));
      const { code, output } = await schemaCheck('--baseline', baseline);
      expect(output).toContain("BREAKING   Field 'colour' was removed from object type 'Product'");
      expect(code).toBe(1);
    },
  );
});
