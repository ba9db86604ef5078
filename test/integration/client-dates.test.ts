import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, catalogSnapshot, mutate } from '../support/catalog-writes.ts';
import { clientDate, inRange, writtenInstant, type ClientDate } from '../support/client-dates.ts';

// A date PostgreSQL cannot hold (year 0000, or past 9999 once the offset is applied) used to reach it and
// answer INTERNAL_SERVER_ERROR with a level-50 log line. Every date a client sends, in a filter, a cursor or a
// write's expectedUpdatedAt, is refused as BAD_USER_INPUT before any SQL; a token's expires_at with a 422.

const PAGE = 'query ($since: DateTime) { products(first: 1, filter: { updatedAfter: $since }) { data { id } } }';
const SORTED = `query ($after: String, $column: ProductOrderColumn!) {
  products(first: 1, after: $after, orderBy: [{ column: $column }]) { data { id } paginatorInfo { endCursor } } }`;
const RUNS = 40;

describe('dates a client sends', () => {
  let t: TestApp;
  let admin: string;
  let reader: string;
  let product: { id: string; updatedAt: string };
  const bindings: Record<string, string> = {};

  const errorOf = (body: { errors?: { message: string; extensions?: { code?: string } }[] }) => body.errors?.[0];
  /** A date refused by the DateTime scalar: a request error, 400 BAD_USER_INPUT. */
  const expectBadInput = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(errorOf(res.body)?.extensions?.code).toBe('BAD_USER_INPUT');
  };
  /** The products field's refusal of a cursor (a field error, as for any other bad cursor). */
  const expectInvalidCursor = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toBeNull();
    expect(errorOf(res.body)).toMatchObject({ message: 'Invalid cursor.', extensions: { code: 'BAD_USER_INPUT' } });
  };
  /** A cursor after the given sort key value, with the right checksum: anyone can write one. */
  const forge = (column: string, value: string) => {
    const payload = JSON.stringify(['k', bindings[column], [value], '1']);
    return Buffer.from(`${payload}:${crc32(payload).toString(16).padStart(8, '0')}`).toString('base64url');
  };
  const internalErrors = () => t.logs.lines.filter((line) => /"level":(5|6)0\b/.test(line));

  beforeAll(async () => {
    t = await startTestApp();
    ({ admin, user: reader } = await adminAndUserTokens(t));
    ({ createProduct: product } = await mutate(
      t,
      admin,
      'mutation { createProduct(input: { name: "Dated", sku: "DATED-1" }) { id updatedAt } }',
    ));
    for (const column of ['UPDATED_AT', 'CREATED_AT']) {
      const res = await t.graphql(SORTED, { token: reader, variables: { column } });
      const cursor = res.body.data.products.paginatorInfo.endCursor as string;
      bindings[column] = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8').slice(0, -9)) as string[])[1]!;
    }
  });
  afterAll(() => t?.close());

  it('year 0000 in a filter (literal or variable) and in forged UPDATED_AT and CREATED_AT cursors: BAD_USER_INPUT, nothing logged as an error', async () => {
    expectBadInput(
      await t.graphql('{ products(first: 1, filter: { updatedAfter: "0000-01-01T00:00:00Z" }) { data { id } } }', {
        token: reader,
      }),
    );
    expectBadInput(await t.graphql(PAGE, { token: reader, variables: { since: '0000-01-01T00:00:00Z' } }));
    // Past 9999 only once the offset is applied, and before year 1 the same way.
    expectBadInput(await t.graphql(PAGE, { token: reader, variables: { since: '9999-12-31T23:59:59-00:01' } }));
    expectBadInput(await t.graphql(PAGE, { token: reader, variables: { since: '0001-01-01T00:00:00+00:01' } }));
    for (const column of ['UPDATED_AT', 'CREATED_AT']) {
      const after = forge(column, '0000-01-01T00:00:00.000Z');
      expectInvalidCursor(await t.graphql(SORTED, { token: reader, variables: { after, column } }));
      // The edges themselves are positions like any other.
      for (const edge of ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
        const res = await t.graphql(SORTED, { token: reader, variables: { after: forge(column, edge), column } });
        expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
      }
    }
    expect(internalErrors()).toEqual([]);
  });

  it('expectedUpdatedAt out of range: BAD_USER_INPUT and nothing written; the edges are ordinary versions', async () => {
    const before = await catalogSnapshot(t);
    for (const at of ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59-00:01']) {
      expectBadInput(
        await t.graphql(
          'mutation ($id: ID!, $at: DateTime) { updateProduct(id: $id, input: { name: "Moved", expectedUpdatedAt: $at }) { id } }',
          { token: admin, variables: { id: product.id, at } },
        ),
      );
      expectBadInput(
        await t.graphql(`mutation ($id: ID!) { deleteProduct(id: $id, expectedUpdatedAt: "${at}") { id } }`, {
          token: admin,
          variables: { id: product.id },
        }),
      );
    }
    expect(await catalogSnapshot(t)).toEqual(before);
    const stale = await t.graphql(
      'mutation ($id: ID!) { updateProduct(id: $id, input: { name: "Moved", expectedUpdatedAt: "0001-01-01T00:00:00Z" }) { id } }',
      { token: admin, variables: { id: product.id } },
    );
    expect(errorOf(stale.body)?.extensions?.code).toBe('CONFLICT');
    await mutate(
      t,
      admin,
      'mutation ($id: ID!) { updateProduct(id: $id, input: { name: "Dated", expectedUpdatedAt: "9999-12-31T23:59:59.999Z" }) { id } }',
      { id: product.id },
    );
    expect(internalErrors()).toEqual([]);
  });

  it("a token's expires_at past 9999 is refused with 422; the latest one kept is answered back unchanged", async () => {
    const create = (expires_at: string) =>
      fetch(`${t.url}/api/v1/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ name: 'far', expires_at }),
      });
    const refused = await create('9999-12-31T23:59:59-23:59');
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string[]> }).errors).toEqual({
      expires_at: ['The expires at field must be a date no later than 9999-12-31T23:59:59.999Z.'],
    });
    const kept = await create('9999-12-31T23:59:59.999Z');
    expect(kept.status).toBe(201);
    const token = ((await kept.json()) as { data: { token: string } }).data.token;
    const { me } = await mutate(t, token, '{ me { token { expiresAt } } }');
    expect(me.token.expiresAt).toBe('9999-12-31T23:59:59.999Z');
  });

  it(`no date in a filter is an internal error (property, ${RUNS} runs, in a variable and in the document)`, async () => {
    await fc.assert(
      fc.asyncProperty(clientDate, async ({ text, accept }: ClientDate) => {
        const asVariable = await t.graphql(PAGE, { token: reader, variables: { since: text } });
        const asLiteral = await t.graphql(
          `{ products(first: 1, filter: { updatedAfter: ${JSON.stringify(text)} }) { data { id } } }`,
          { token: reader },
        );
        for (const res of [asVariable, asLiteral]) {
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
          expect(errorOf(res.body)?.extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
          if (accept === true) expect(res.body.errors, text).toBeUndefined();
          if (accept === false) expectBadInput(res);
        }
      }),
      { numRuns: RUNS },
    );
    expect(internalErrors()).toEqual([]);
  });

  it(`no forged UPDATED_AT or CREATED_AT cursor is an internal error (property, ${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('UPDATED_AT', 'CREATED_AT'),
        fc.oneof(writtenInstant, clientDate).map((d) => d.text),
        async (column, value) => {
          const res = await t.graphql(SORTED, { token: reader, variables: { after: forge(column, value), column } });
          const sound =
            /^[0-9]{4}-/.test(value) && inRange(Date.parse(value)) && new Date(value).toISOString() === value;
          if (sound) expect(res.body.errors, value).toBeUndefined();
          else expectInvalidCursor(res);
        },
      ),
      { numRuns: RUNS },
    );
    expect(internalErrors()).toEqual([]);
  });
});
