import { makeExecutableSchema } from '@graphql-tools/schema';
import type { OperationDefinitionNode } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useCompiledExecution } from '../../src/graphql/plugins/use-compiled-execution.ts';
import { useScopes } from '../../src/graphql/plugins/use-scopes.ts';
import { createLogger } from '../../src/platform/logger.ts';

// Scope checking executes a rewritten copy of the document on every request. graphql-jit builds each
// resolver's `info` from the document it compiled, so `info.operation` is one object for as long as one
// compiled query serves a text, and a new one every time it compiles again.

describe('compiled execution behind scope checking', () => {
  it('compiles a query once per document text, whatever copy of the document each request executes', async () => {
    const operations: OperationDefinitionNode[] = [];
    const schema = makeExecutableSchema({
      typeDefs: `
        directive @requiresScopes(scopes: [[String!]!]!) on FIELD_DEFINITION | OBJECT
        type Query { hello: String @requiresScopes(scopes: [["catalog:read"]]) }`,
      resolvers: {
        Query: {
          hello: (_root: unknown, _args: unknown, _ctx: unknown, info: { operation: OperationDefinitionNode }) => {
            operations.push(info.operation);
            return 'world';
          },
        },
      },
    });
    const yoga = createYoga({
      schema,
      logging: false,
      context: () => ({ session: { scopes: new Set(['catalog:read']) } }),
      plugins: [useScopes(), useCompiledExecution(createLogger('silent'))],
    });
    const ask = async (query: string) => {
      const res = await yoga.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      expect(await res.json()).toEqual({ data: { hello: 'world' } });
    };

    for (let i = 0; i < 3; i++) await ask('query A { hello }');
    await ask('query B { hello }');
    await ask('query A { hello }');

    expect(operations.map((o) => o.name?.value)).toEqual(['A', 'A', 'A', 'B', 'A']);
    // One compiled query for A, one for B.
    expect(new Set(operations).size).toBe(2);
  });
});
