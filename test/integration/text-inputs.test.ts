import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, catalogSnapshot, mutate, productInput } from '../support/catalog-writes.ts';

// Issue 20, finding 5: text that would not round-trip through the database (NUL, lone surrogates,
// non-characters) is refused on every input as bad input, never a 500; invisible-only names are empty.

let t: TestApp;
let admin: string;
let customisationId: string;
let before: unknown[];

const NUL = 'a\u0000b';
const LONE = 'a\ud800b';
const NONCHAR = 'a\ufffeb';
const TEXT_MESSAGE = (attribute: string) =>
  `The ${attribute} field must not contain NUL bytes, unpaired surrogates or Unicode non-characters.`;

const CREATE = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`;
const UPSERT = `mutation ($input: UpsertProductInput!) { upsertProduct(input: $input) { id } }`;
const UPDATE_CUSTOMISATION = `mutation ($id: ID!, $input: UpdateCustomisationInput!) { updateCustomisation(id: $id, input: $input) { id } }`;

/** Neither an error-level line nor a stack in the log: a refusal is the client's doing. */
function expectQuietLog(from: number) {
  const lines = t.logs.lines.slice(from).map((l) => JSON.parse(l) as { level: number; err?: { stack?: string } });
  expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  expect(t.logs.lines.slice(from).join('\n')).not.toContain('"stack"');
}

async function refusedGraphQL(
  query: string,
  variables: Record<string, unknown>,
  field: string,
  validation: Record<string, string[]>,
  quiet = true,
) {
  const logFrom = t.logs.lines.length;
  const res = await t.graphql(query, { token: admin, variables });
  expect(res.body.errors, JSON.stringify(res.body)).toHaveLength(1);
  expect(res.body.errors[0]).toMatchObject({
    message: `Validation failed for the field [${field}].`,
    extensions: { code: 'BAD_USER_INPUT', validation },
  });
  expect(res.body.data).toBeNull();
  expect(res.status).toBeLessThan(500);
  expect(await catalogSnapshot(t)).toEqual(before);
  if (quiet) expectQuietLog(logFrom);
}

beforeAll(async () => {
  t = await startTestApp();
  ({ admin } = await adminAndUserTokens(t));
  const data = await mutate(
    t,
    admin,
    `mutation ($input: CreateProductInput!) { createProduct(input: $input) { steps { components { customisations { id } } } } }`,
    {
      input: productInput('TEXT-1', { steps: 1, components: 1, customisations: 1 }),
    },
  );
  customisationId = data.createProduct.steps[0].components[0].customisations[0].id;
  before = await catalogSnapshot(t);
});
afterAll(() => t?.close());

describe('GraphQL', () => {
  const at = 'input.steps.0.components.0.customisations.0';
  it.each([
    ['a NUL in the product name', { name: NUL }, 'input.name', 'name'],
    ['a lone surrogate in the sku', { sku: LONE }, 'input.sku', 'sku'],
    ['U+FFFE in a step name', { stepName: NONCHAR }, 'input.steps.0.name', 'name'],
    ['U+FDD0 in a customisation type', { type: 'x\ufdd0' }, `${at}.type`, 'type'],
    ['U+10FFFF in a customisation name', { optionName: 'x\u{10FFFF}' }, `${at}.name`, 'name'],
  ] as [string, Record<string, string>, string, string][])(
    'createProduct refuses %s',
    async (_, bad, path, attribute) => {
      const input = productInput('TEXT-NEW', { steps: 1, components: 1, customisations: 1 });
      if (bad.name) input.name = bad.name;
      if (bad.sku) input.sku = bad.sku;
      if (bad.stepName) input.steps[0]!.name = bad.stepName;
      if (bad.type) input.steps[0]!.components[0]!.customisations[0]!.type = bad.type;
      if (bad.optionName) input.steps[0]!.components[0]!.customisations[0]!.name = bad.optionName;
      await refusedGraphQL(CREATE, { input }, 'createProduct', { [path]: [TEXT_MESSAGE(attribute)] });
    },
  );

  it('refuses a lone surrogate sent as the JSON escape \\ud800, however often the upsert is repeated', async () => {
    const input = productInput('TEXT-1', { steps: 1, components: 1, customisations: 1 });
    input.steps[0]!.components[0]!.customisations[0]!.name = 'Oak \ud800';
    const body = JSON.stringify({ query: UPSERT, variables: { input } });
    expect(body).toContain('Oak \\ud800');
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body,
      });
      const json = await res.json();
      expect(json.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        validation: { [`${at}.name`]: [TEXT_MESSAGE('name')] },
      });
      expect(await catalogSnapshot(t)).toEqual(before);
    }
  });

  it('updateCustomisation refuses a NUL, a lone surrogate and U+FFFF', async () => {
    for (const name of [NUL, LONE, 'a\uffff']) {
      await refusedGraphQL(UPDATE_CUSTOMISATION, { id: customisationId, input: { name } }, 'updateCustomisation', {
        'input.name': [TEXT_MESSAGE('name')],
      });
    }
  });

  it('refuses the same characters written as literals in the document', async () => {
    const logFrom = t.logs.lines.length;
    const res = await t.graphql(
      `mutation { updateCustomisation(id: "${customisationId}", input: { type: "x\\u0000y" }) { id } }`,
      { token: admin },
    );
    expect(res.body.errors[0]).toMatchObject({
      message: 'Validation failed for the field [updateCustomisation].',
      extensions: { code: 'BAD_USER_INPUT', validation: { 'input.type': [TEXT_MESSAGE('type')] } },
    });
    expect(await catalogSnapshot(t)).toEqual(before);
    expectQuietLog(logFrom);
  });

  it('refuses a name made only of invisible characters as an empty one', async () => {
    for (const name of ['\u200b\u200b', '\ufeff', ' \u200d\u2060 ']) {
      // The write validation's own refusal (its log line is that path's, as for any other rule).
      await refusedGraphQL(
        UPDATE_CUSTOMISATION,
        { id: customisationId, input: { name } },
        'updateCustomisation',
        {
          'input.name': ['The name field is required.'],
        },
        false,
      );
    }
  });

  it('still accepts ordinary non-ASCII text, emoji (surrogate pairs) included, and stores it unchanged', async () => {
    const name = 'Eiche – 橡木 🪵 Zoë';
    await mutate(t, admin, UPDATE_CUSTOMISATION, { id: customisationId, input: { name } });
    const stored = await sql<{ name: string }>`SELECT name FROM customisations WHERE id = ${customisationId}`.execute(
      t.database.handle.db,
    );
    expect(stored.rows[0]!.name).toBe(name);
    before = await catalogSnapshot(t);
  });
});

describe('REST', () => {
  const post = (path: string, body: string, token?: string) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body,
    });
  const tokenCount = async () =>
    Number(
      (await sql<{ n: string }>`SELECT count(*) AS n FROM personal_access_tokens`.execute(t.database.handle.db))
        .rows[0]!.n,
    );

  it('POST /api/v1/tokens refuses a NUL, a lone surrogate or a non-character in the name with 422; nothing is stored', async () => {
    const count = await tokenCount();
    const logFrom = t.logs.lines.length;
    for (const name of [NUL, LONE, NONCHAR]) {
      const res = await post('/api/v1/tokens', JSON.stringify({ name }), admin);
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        success: false,
        message: TEXT_MESSAGE('name'),
        errors: { name: [TEXT_MESSAGE('name')] },
      });
    }
    const invisible = await post('/api/v1/tokens', JSON.stringify({ name: '\u200b\u200b' }), admin);
    expect(invisible.status).toBe(422);
    expect((await invisible.json()).errors).toEqual({ name: ['The name field is required.'] });
    expect(await tokenCount()).toBe(count);
    expectQuietLog(logFrom);
  });

  it('login with a NUL in the email or the password is a 422, not a 500', async () => {
    const logFrom = t.logs.lines.length;
    for (const [field, body] of [
      ['email', { email: 'a\u0000@example.com', password: 'whatever-long' }],
      ['password', { email: 'a@example.com', password: 'pass\u0000word' }],
    ] as const) {
      const res = await post('/api/v1/login', JSON.stringify(body));
      expect(res.status).toBe(422);
      expect((await res.json()).errors).toEqual({ [field]: [TEXT_MESSAGE(field)] });
    }
    expectQuietLog(logFrom);
  });

  it('a body that is not valid UTF-8 is malformed (400), not silently altered', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]);
    const res = await fetch(`${t.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: bytes,
    });
    expect(res.status).toBe(400);
  });
});
