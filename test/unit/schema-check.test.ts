import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSchema } from '../../scripts/check-schema.ts';
import { serviceSchema } from '../../src/modules/index.ts';
import { printSchemaFile, RELEASED_SCHEMA_FILE } from '../../src/graphql/sdl.ts';

// The command's exit status as CI sees it: test/integration/schema-check-command.test.ts.
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
