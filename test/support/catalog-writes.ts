import { sql } from 'kysely';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';

// What the catalogue-write tests share: a product tree of a given shape, the selection that reads one
// back whole, and a snapshot of every catalogue table to prove a refused write left nothing behind.

export const TREE = `id name sku createdAt updatedAt
  steps { id name order createdAt updatedAt
    components { id name position createdAt updatedAt
      customisations { id name type price createdAt updatedAt } } }`;

export function productInput(sku: string, shape = { steps: 5, components: 4, customisations: 3 }) {
  return {
    name: `Product ${sku}`,
    sku,
    steps: Array.from({ length: shape.steps }, (_, s) => ({
      name: `Step ${s + 1}`,
      order: s + 1,
      components: Array.from({ length: shape.components }, (_, c) => ({
        name: `Component ${s + 1}.${c + 1}`,
        position: c + 1,
        customisations: Array.from({ length: shape.customisations }, (_, x) => ({
          name: `Option ${x + 1}`,
          type: x % 2 === 0 ? 'colour' : 'dropdown',
          price: Number(`${x}.${(s * 7 + c * 3 + x) % 100}`.padEnd(4, '0')),
        })),
      })),
    })),
  };
}

/** A GraphQL call that must succeed; returns `data`. */
export async function mutate(t: TestApp, token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await t.graphql(query, { token, variables });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Every row of every catalogue table, in a stable order: equal snapshots mean nothing was written. */
export async function catalogSnapshot(t: TestApp): Promise<unknown[]> {
  const db = t.database.handle.db;
  const tables = ['products', 'steps', 'components', 'customisations'];
  const out: unknown[] = [];
  for (const table of tables) {
    const { rows } = await sql`SELECT * FROM ${sql.table(table)} ORDER BY id`.execute(db);
    out.push(table, rows);
  }
  return out;
}

/** An administrator's login token (every ability) and an ordinary user's. */
export async function adminAndUserTokens(t: TestApp): Promise<{ admin: string; user: string }> {
  const admin = await t.createUser({ isAdmin: true });
  const user = await t.createUser();
  return { admin: await t.login(admin.email, admin.password), user: await t.login(user.email, user.password) };
}
