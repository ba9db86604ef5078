import { describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIGURE, EXAMPLE_MUTATION, EXAMPLE_QUERY } from '../../src/graphiql-app/examples.ts';

// Issue 30 item 8: the query editor shows about 58 characters at 1920 px with the Account panel open
// (test/e2e/graphiql.test.ts checks the first tab in chromium); longer comment lines were cut off.
describe('GraphiQL example tabs', () => {
  it('keep every comment line within 56 characters', () => {
    for (const example of [EXAMPLE_QUERY, EXAMPLE_MUTATION, EXAMPLE_CONFIGURE]) {
      const long = example.split('\n').filter((line) => line.trimStart().startsWith('#') && line.length > 56);
      expect(long).toEqual([]);
    }
  });
});
