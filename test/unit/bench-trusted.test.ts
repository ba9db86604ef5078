import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { manifestOf, toTrustedBody } from '../../scripts/bench/trusted.ts';
import { QUERIES } from '../../scripts/bench/queries.ts';
import { loadConfig } from '../../src/config.ts';
import { checkEntry } from '../../src/modules/documents/tools.ts';
import { serviceSchema } from '../../src/modules/index.ts';

// npm run bench -- --trusted: the service's bodies by id, and documents:push accepting every bench document.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the bench with --trusted', () => {
  it('sends the document by its id, variables and operation name kept', () => {
    const body = JSON.stringify({ query: QUERIES.Q1, variables: { id: '7' }, operationName: 'Product' });
    expect(JSON.parse(toTrustedBody(body))).toEqual({
      documentId: `sha256:${sha256(QUERIES.Q1)}`,
      variables: { id: '7' },
      operationName: 'Product',
    });
    expect(toTrustedBody(JSON.stringify({ query: QUERIES.Q0 }))).toBe(`{"documentId":"sha256:${sha256(QUERIES.Q0)}"}`);
  });

  it('registers each document once, and documents:push would take every one at the default limits', () => {
    const bodies = Object.values(QUERIES).flatMap((query) => [
      JSON.stringify({ query }),
      JSON.stringify({ query, variables: {} }),
    ]);
    const manifest = manifestOf(bodies);
    expect(Object.values(manifest).sort()).toEqual(Object.values(QUERIES).sort());
    const { graphql } = loadConfig({});
    const schema = serviceSchema();
    for (const [hash, text] of Object.entries(manifest))
      expect(checkEntry(schema, graphql, hash, text)).toBeUndefined();
  });
});
