import { createSchema, createYoga } from 'graphql-yoga';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createResponseCache, useResponseCache } from '../../../src/graphql/response-cache/index.ts';
import { createShareability, sharedFields } from '../../../src/graphql/response-cache/shareable.ts';
import type { Session } from '../../../src/platform/session.ts';

// Should a per-caller field ever appear, the shared cache must not hand one caller's answer to
// another: only fields the SDL marks @sharedCache are kept. Two callers with the same scopes here.

const typeDefs = (shared: string) => /* GraphQL */ `
  directive @sharedCache on FIELD_DEFINITION
  type Query {
    shared: String @sharedCache
    me: Me ${shared}
    product: Product @sharedCache
  }
  type Me {
    email: String ${shared}
  }
  type Product {
    id: ID @sharedCache
    name: String @sharedCache
    viewerHasSaved: Boolean
  }
`;

const resolvers = {
  Query: {
    shared: () => 'same for all',
    me: (_: unknown, __: unknown, { session }: { session: Session }) => ({ email: session.user.email }),
    product: () => ({ id: '1', name: 'Desk' }),
  },
  Product: {
    viewerHasSaved: (_: unknown, __: unknown, { session }: { session: Session }) => session.user.id === '1',
  },
};

function session(id: string): Session {
  return {
    tokenId: id,
    user: { id, name: id, email: `${id}@example.com`, isAdmin: false, createdAt: new Date(0) },
    abilities: ['*'],
    scopes: ['catalog:read'],
    expiresAt: null,
  };
}

function service(shared = '') {
  const schema = createSchema<{ session: Session }>({ typeDefs: typeDefs(shared), resolvers });
  const cache = createResponseCache({
    maxEntries: 100,
    maxBytes: 1 << 20,
    maxAnswerBytes: 1 << 16,
    maxTokenShare: 0.25,
    ttlMs: 60_000,
    registry: new Registry(),
  });
  cache.setAvailable(true);
  const yoga = createYoga<{ session: Session }>({
    schema,
    plugins: [useResponseCache(cache, createShareability(schema))],
  });
  const ask = async (query: string, caller: Session) => {
    const res = await yoga.fetch(
      'http://localhost/graphql',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) },
      { session: caller },
    );
    return { body: (await res.json()) as { data: any }, etag: res.headers.get('etag') };
  };
  return { schema, ask };
}

const alice = session('1');
const bob = session('2');

describe('what the shared response cache may share', () => {
  const { schema, ask } = service();

  it('reads the shared fields from the SDL', () => {
    expect([...sharedFields(schema)].sort()).toEqual(['Product.id', 'Product.name', 'Query.product', 'Query.shared']);
  });

  it('shares an answer made of @sharedCache fields, with a validator of its bytes', async () => {
    const first = await ask('{ shared product { id name } }', alice);
    const second = await ask('{ shared product { id name } }', bob);
    expect(second.body).toEqual({ data: { shared: 'same for all', product: { id: '1', name: 'Desk' } } });
    expect(second.etag).toMatch(/^"[\w-]{27}"$/);
    expect(second.etag).toBe(first.etag);
  });

  it('never shares a field without it: each caller gets its own', async () => {
    expect((await ask('{ me { email } }', alice)).body.data.me.email).toBe('1@example.com');
    expect((await ask('{ me { email } }', bob)).body.data.me.email).toBe('2@example.com');
    expect((await ask('{ shared me { email } }', alice)).body.data.me.email).toBe('1@example.com');
    expect((await ask('{ shared me { email } }', bob)).body.data.me.email).toBe('2@example.com');
  });

  it('never shares a per-caller field added to a shared type', async () => {
    expect((await ask('{ product { id viewerHasSaved } }', alice)).body.data.product.viewerHasSaved).toBe(true);
    expect((await ask('{ product { id viewerHasSaved } }', bob)).body.data.product.viewerHasSaved).toBe(false);
  });

  it('would share it, wrongly, if the SDL marked it (the check above can fail)', async () => {
    const careless = service('@sharedCache');
    await careless.ask('{ me { email } }', alice);
    expect((await careless.ask('{ me { email } }', bob)).body.data.me.email).toBe('1@example.com');
  });
});
