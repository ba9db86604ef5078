import fs from 'node:fs';
import path from 'node:path';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedFiles, typedModules } from '../../scripts/codegen.ts';
import { serviceSchema } from '../../src/modules/index.ts';
import { PRINTED_SCHEMA_FILE, printSchemaFile } from '../../src/graphql/sdl.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  const user = await t.createUser();
  token = await t.login(user.email, user.password);
});
afterAll(() => t.close());

const committed = () => fs.readFileSync(PRINTED_SCHEMA_FILE, 'utf8');

describe('the printed schema (schema.graphql)', () => {
  it('is what schema/ builds: run `npm run schema:print` after editing schema/', () => {
    expect(printSchemaFile(serviceSchema())).toBe(committed());
  });

  it('is what the running service serves over introspection, descriptions included', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      directiveIsRepeatable: true,
      specifiedByUrl: true,
      inputValueDeprecation: true,
      schemaDescription: true,
    });
    const res = await t.graphql(query, { token });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const served = buildClientSchema(res.body.data as IntrospectionQuery);
    expect(printSchemaFile(served)).toBe(committed());
  });
});

describe('descriptions', () => {
  // Federation's own machinery (_entities, _Any, @link's scalars…) is defined by
  // @apollo/subgraph, not by schema/; everything of ours must be described.
  const isFederationOwned = (name: string) =>
    name.startsWith('_') || name.startsWith('federation__') || name.startsWith('link__');

  it('every type, field, argument and enum value defined in schema/ has one', () => {
    const schema = serviceSchema();
    const missing: string[] = [];
    const need = (where: string, description: string | null | undefined) => {
      if (!description?.trim()) missing.push(where);
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || isSpecifiedScalarType(type) || isFederationOwned(type.name)) continue;
      need(type.name, type.description);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (isFederationOwned(field.name)) continue;
          need(`${type.name}.${field.name}`, field.description);
          for (const arg of field.args) need(`${type.name}.${field.name}(${arg.name})`, arg.description);
        }
      }
      if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) need(`${type.name}.${field.name}`, field.description);
      }
      if (isEnumType(type)) {
        for (const value of type.getValues()) need(`${type.name}.${value.name}`, value.description);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the check covers the public types (it would notice a missing description)', () => {
    const schema = serviceSchema();
    const product = schema.getType('Product');
    expect(isObjectType(product) && getNamedType(product.getFields().steps!.type).name).toBe('Step');
    expect(Object.keys(schema.getTypeMap())).toEqual(
      expect.arrayContaining([
        'Query',
        'Product',
        'ProductPaginator',
        'PaginatorInfo',
        'Step',
        'Component',
        'Customisation',
      ]),
    );
  });
});

describe('generated resolver types', () => {
  it('type every module with resolvers', () => {
    expect(typedModules().map((m) => m.name)).toEqual(['auth', 'catalog', 'configurations']);
  });

  it('are up to date with schema/: run `npm run codegen` after editing schema/', async () => {
    const files = await generatedFiles();
    expect(files.map((f) => path.relative(process.cwd(), f.file))).toContain('src/modules/catalog/generated/enums.ts');
    for (const { file, text } of files) expect(text, file).toBe(fs.readFileSync(file, 'utf8'));
  });
});
