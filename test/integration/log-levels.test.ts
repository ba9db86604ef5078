import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate } from '../support/catalog-writes.ts';
import { loginFrom } from '../support/raw-http.ts';

// Log levels that mean something: what a caller got wrong (4xx) is info or warn and carries no query
// text; "error" (level 50) is kept for what the service itself did wrong.

let t: TestApp;
let admin: string;
let user: string;

beforeAll(async () => {
  t = await startTestApp({ env: { LOGIN_MAX_ATTEMPTS: '2' } });
  ({ admin, user } = await adminAndUserTokens(t));
});
afterAll(() => t.close());

type Line = { level: number; msg: string; [k: string]: unknown };
const linesSince = (mark: number): Line[] => t.logs.lines.slice(mark).map((l) => JSON.parse(l) as Line);
// A comment in every document below: the query text must never reach the log.
const MARK = 'QueryTextMarker';
const doc = (text: string) => `# ${MARK}\n${text}`;

describe('log levels', () => {
  it('client mistakes (validation, conflict, not found, forbidden, unauthenticated, throttled) log below error, without the query text', async () => {
    const { createProduct: p } = await mutate(
      t,
      admin,
      `mutation { createProduct(input: { name: "Levels", sku: "LOG-1" }) { id updatedAt } }`,
    );
    const mark = t.logs.lines.length;
    const answers = [
      await t.graphql(
        doc(
          `mutation { updateProduct(id: "${p.id}", input: { name: "x", expectedUpdatedAt: "2000-01-01T00:00:00Z" }) { id } }`,
        ),
        { token: admin },
      ),
      await t.graphql(doc(`mutation { updateProduct(id: "99999999", input: { name: "x" }) { id } }`), { token: admin }),
      await t.graphql(doc(`mutation { updateProduct(id: "${p.id}", input: { name: "" }) { id } }`), { token: admin }),
      await t.graphql(doc(`mutation { createProduct(input: { name: "x", sku: "LOG-1" }) { id } }`), { token: admin }),
      await t.graphql(doc(`mutation { updateProduct(id: "${p.id}", input: { name: "x" }) { id } }`), { token: user }),
      await t.graphql(doc(`query { products { data { nope } } }`), { token: admin }),
      await t.graphql(doc(`query ($n: Int!) { products(first: $n) { data { id } } }`), {
        token: admin,
        variables: { n: 'many' },
      }),
      await t.graphql(doc(`query { products(first: 100000) { data { id } } }`), { token: admin }),
      await t.graphql(doc(`query { products { data { id } } }`), { token: 'nope' }),
    ];
    expect(answers.map((a) => a.body.errors?.[0]?.extensions?.code)).toEqual([
      'CONFLICT',
      'NOT_FOUND',
      'BAD_USER_INPUT',
      'BAD_USER_INPUT',
      'FORBIDDEN',
      'GRAPHQL_VALIDATION_FAILED',
      'BAD_USER_INPUT',
      'BAD_USER_INPUT',
      'UNAUTHENTICATED',
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await loginFrom(t.url, '127.0.0.9', 'nobody@example.com', `wrong-${MARK}`)).status);
    expect(statuses).toContain(429);

    const lines = linesSince(mark);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => JSON.stringify(l).includes(MARK)).map((l) => JSON.stringify(l))).toEqual([]);
    // Still visible to an operator: one line per refused write, with what was refused.
    const refused = lines.filter((l) => l.msg === 'graphql operation refused').map((l) => l['outcome']);
    expect(refused).toEqual(expect.arrayContaining(['Conflict', 'NotFound', 'ValidationFailed']));
  });

  it('a failure of the service itself is an error, with its cause and without the query text', async () => {
    const mark = t.logs.lines.length;
    await sql`ALTER TABLE products RENAME COLUMN name TO gone`.execute(t.database.handle.db);
    try {
      const res = await t.graphql(doc(`query { products(first: 1) { data { name } } }`), { token: admin });
      expect(res.body.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
    } finally {
      await sql`ALTER TABLE products RENAME COLUMN gone TO name`.execute(t.database.handle.db);
    }
    const errors = linesSince(mark).filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toMatch(/name/);
    expect(t.logs.lines.slice(mark).join('\n')).not.toContain(MARK);
  });
});
