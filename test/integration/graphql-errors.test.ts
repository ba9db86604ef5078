import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { postGraphQL, rawGraphQL, tokenFor } from '../support/edge.ts';

/** What must never reach a client: stacks, file paths, SQL text, SQLSTATEs, driver wording. */
function expectNothingInternal(text: string) {
  expect(text).not.toMatch(/\bat .+:\d+:\d+/); // stack frames
  expect(text).not.toMatch(/\/work\/|node_modules|\.ts\b|\.js\b/);
  expect(text).not.toMatch(/\bselect\b|\bfrom\b|\binsert\b|relation|does not exist/i);
  expect(text).not.toMatch(/42P01|SQLSTATE|sqlState|"stack"|originalError/);
}

describe.each(['development', 'production'] as const)('internal errors with NODE_ENV=%s', (nodeEnv) => {
  let t: TestApp;
  let token: string;
  const previous = process.env.NODE_ENV;

  beforeAll(async () => {
    // Yoga and graphql-js also look at the process's NODE_ENV, not only at config.
    process.env.NODE_ENV = nodeEnv;
    t = await startTestApp({ env: { NODE_ENV: nodeEnv } });
    token = await tokenFor(t);
    await seedCatalog(t.app.database.db, {
      products: 2,
      seed: 7,
      shape: { steps: 1, components: 1, customisations: 1 },
    });
  });
  afterAll(async () => {
    process.env.NODE_ENV = previous;
    await t.close();
  });

  it('masks a failing SQL statement as "Unexpected error." with INTERNAL_SERVER_ERROR', async () => {
    expect(t.config.runtime.nodeEnv).toBe(nodeEnv);
    // This file's own database: the next customisations lookup fails inside PostgreSQL.
    await t.app.database.db.schema.dropTable('customisations').cascade().execute();
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const res = await rawGraphQL(t, {
        token,
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({
          query: '{ products(first: 2) { data { id steps { components { customisations { id } } } } } }',
        }),
      });
      expect(res.body.data).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].message).toBe('Unexpected error.');
      expect(res.body.errors[0].extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
      expectNothingInternal(JSON.stringify(res.body.errors[0].extensions));
      expectNothingInternal(res.body.errors[0].message);
    }
    // The operator still gets the real cause, in the log.
    expect(t.logs.text).toMatch(/customisations/);
  });

  it('masks a failure before GraphQL runs (the token lookup itself) the same way, as a GraphQL body', async () => {
    // A broken table, not an outage: the token lookup fails with an SQL error. A token not yet
    // used, so no cache holds it.
    const fresh = await tokenFor(t);
    await t.app.database.db.schema.alterTable('personal_access_tokens').renameColumn('token_hash', 'gone').execute();
    try {
      const res = await rawGraphQL(t, {
        token: fresh,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      });
      expectNothingInternal(res.text);
    } finally {
      await t.app.database.db.schema.alterTable('personal_access_tokens').renameColumn('gone', 'token_hash').execute();
    }
  });

  it('answers malformed JSON with a short fixed message and 400, echoing nothing', async () => {
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const res = await rawGraphQL(t, {
        token,
        headers: { 'content-type': 'application/json', accept },
        body: '{"query": "{ __typename }", "secret-ish": SELECT',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }],
      });
      expectNothingInternal(res.text);
    }
  });
});

describe('operation selection', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = await tokenFor(t);
  });
  afterAll(() => t.close());

  it('refuses an unknown operationName with a validation error', async () => {
    const res = await postGraphQL(t, token, { query: 'query A { __typename }', operationName: 'B' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [{ message: 'Unknown operation named "B".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
  });

  it('refuses several operations without an operationName', async () => {
    // Parsed and cached once with a name first: the check also holds for a cached document.
    const query = 'query A { __typename } query B { __typename }';
    expect((await postGraphQL(t, token, { query, operationName: 'A' })).status).toBe(200);
    const res = await postGraphQL(t, token, { query });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          message: 'Must provide operation name if query contains multiple operations.',
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
    const named = await postGraphQL(t, token, {
      query: 'query A { a: __typename } query B { b: __typename }',
      operationName: 'B',
    });
    expect(named.status).toBe(200);
    expect(named.body).toEqual({ data: { b: 'Query' } });
  });

  it('refuses an unknown field with a validation error and no internals', async () => {
    const res = await postGraphQL(t, token, { query: '{ products { data { password } } }' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expectNothingInternal(res.text);
  });
});
