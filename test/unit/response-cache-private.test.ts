import { createSchema, createYoga } from 'graphql-yoga';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { useSharedResponseCache } from '../../src/graphql/plugins/use-shared-response-cache.ts';
import { createResponseStore } from '../../src/graphql/response-cache.ts';
import type { Session } from '../../src/platform/session.ts';

// Should a per-caller field ever appear, the shared cache must not hand one caller's answer to
// another: only fields a module declares public are kept. Two callers with the same scopes here.

const schema = createSchema<{ session: Session }>({
  typeDefs: /* GraphQL */ `
    type Query {
      shared: String
      me: Me
      product: Product
    }
    type Me {
      email: String
    }
    type Product {
      id: ID
      name: String
      viewerHasSaved: Boolean
    }
  `,
  resolvers: {
    Query: {
      shared: () => 'same for all',
      me: (_: unknown, __: unknown, { session }: { session: Session }) => ({ email: session.user.email }),
      product: () => ({ id: '1', name: 'Desk' }),
    },
    Product: {
      viewerHasSaved: (_: unknown, __: unknown, { session }: { session: Session }) => session.user.id === '1',
    },
  },
});

function session(id: string): Session {
  return {
    tokenId: id,
    user: { id, name: id, email: `${id}@example.com`, isAdmin: false, createdAt: new Date(0) },
    abilities: ['*'],
    scopes: ['catalog:read'],
    expiresAt: null,
  };
}

function service(publicFields: Record<string, string[]>) {
  const store = createResponseStore({ maxEntries: 100, maxBytes: 1 << 20, ttlMs: 60_000, registry: new Registry() });
  store.setAvailable(true);
  const yoga = createYoga<{ session: Session }>({
    schema,
    plugins: useSharedResponseCache(store, schema, [publicFields]),
  });
  return async (query: string, caller: Session) => {
    const res = await yoga.fetch(
      'http://localhost/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      },
      { session: caller },
    );
    return (await res.json()) as { data: any };
  };
}

const alice = session('1');
const bob = session('2');

describe('what the shared response cache may share', () => {
  const ask = service({ Query: ['shared', 'product'], Product: ['id', 'name'] });

  it('shares a declared-public answer', async () => {
    await ask('{ shared product { id name } }', alice);
    expect(await ask('{ shared product { id name } }', bob)).toEqual({
      data: { shared: 'same for all', product: { id: '1', name: 'Desk' } },
    });
  });

  it('never shares a field nobody declared public: each caller gets its own', async () => {
    expect((await ask('{ me { email } }', alice)).data.me.email).toBe('1@example.com');
    expect((await ask('{ me { email } }', bob)).data.me.email).toBe('2@example.com');
    expect((await ask('{ shared me { email } }', alice)).data.me.email).toBe('1@example.com');
    expect((await ask('{ shared me { email } }', bob)).data.me.email).toBe('2@example.com');
  });

  it('never shares a per-caller field added to a public type', async () => {
    expect((await ask('{ product { id viewerHasSaved } }', alice)).data.product.viewerHasSaved).toBe(true);
    expect((await ask('{ product { id viewerHasSaved } }', bob)).data.product.viewerHasSaved).toBe(false);
  });

  it('would share it, wrongly, if a module declared it public (the check above can fail)', async () => {
    const careless = service({ Query: ['me'], Me: ['email'] });
    await careless('{ me { email } }', alice);
    expect((await careless('{ me { email } }', bob)).data.me.email).toBe('1@example.com');
  });
});
