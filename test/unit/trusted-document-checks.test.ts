import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkEntry } from '../../src/modules/documents/tools.ts';
import { serviceSchema } from '../../src/modules/index.ts';

// What documents:push refuses an entry for: the checks a request with the same text would fail before running.

const schema = serviceSchema();
const limits = { maxDepth: 10, maxTokens: 1000, maxAliases: 15, maxDirectives: 50 };
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const check = (text: string, config = limits) => checkEntry(schema, config, sha256(text), text);

describe('a trusted document entry', () => {
  it('passes when its hash, syntax, schema and limits are right', () => {
    expect(check('query Page { products(first: 2) { data { id name } } }')).toBeUndefined();
    expect(check('mutation Delete($id: ID!) { deleteProduct(id: $id) { id } }')).toBeUndefined();
  });

  it('is refused for a key that is not a lowercase SHA-256, or a text that is not its own', () => {
    const text = '{ __typename }';
    expect(checkEntry(schema, limits, sha256(text).toUpperCase(), text)).toMatch(/not a SHA-256 hash/);
    expect(checkEntry(schema, limits, sha256(text), `${text} `)).toMatch(/does not match the document/);
    expect(checkEntry(schema, limits, sha256(text), 42)).toMatch(/not a non-empty string/);
  });

  it('is refused for each limit a request would hit: tokens, depth, aliases, directives', () => {
    const fields = Array.from({ length: 300 }, () => '__typename').join(' ');
    expect(check(`{ ${fields} }`, { ...limits, maxTokens: 100 })).toBe('Token limit of 100 exceeded.');
    expect(check('{ product(id: "1") { steps { components { id } } } }', { ...limits, maxDepth: 2 })).toBe(
      'Query depth limit of 2 exceeded.',
    );
    expect(check('{ a: __typename b: __typename c: __typename }', { ...limits, maxAliases: 2 })).toMatch(
      /^Aliases limit of 2 exceeded/,
    );
    expect(check('{ __typename @skip(if: false) @include(if: true) }', { ...limits, maxDirectives: 1 })).toMatch(
      /^Directives limit of 1 exceeded/,
    );
  });

  it('is refused for what validation refuses, fragment cycles included', () => {
    expect(check('{ nothingHere }')).toBe('Cannot query field "nothingHere" on type "Query".');
    expect(check('query A { ...F } fragment F on Query { ...F }')).toMatch(/Cannot spread fragment "F" within itself/);
    expect(check('query {')).toMatch(/^Syntax Error/);
  });
});
