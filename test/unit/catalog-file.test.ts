import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CatalogFileError,
  MAX_TEXT_BYTES,
  ProductsReader,
  SHAPE_MESSAGE,
  type CatalogEntry,
} from '../../scripts/admin/catalog-file.ts';

// The import's streaming reader must read every file as JSON.parse does, however the bytes arrive.

function read(text: string | Buffer, cuts: number[] = []): CatalogEntry[] {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const entries: CatalogEntry[] = [];
  const reader = new ProductsReader(true, (e) => entries.push(e));
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    reader.push(bytes.subarray(from, cut));
    from = cut;
  }
  reader.push(bytes.subarray(from));
  reader.end();
  return entries;
}

const failure = (text: string) => {
  try {
    read(text);
  } catch (err) {
    if (err instanceof CatalogFileError) return err.message;
    throw err;
  }
  return undefined;
};

describe('ProductsReader', () => {
  it('gives the entries JSON.parse gives, split anywhere', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ stringUnit: 'binary' })),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.boolean(),
        (products, cuts, pretty) => {
          const text = JSON.stringify({ before: { x: [1] }, products, after: 'y' }, null, pretty ? 2 : undefined);
          const entries = read(text, cuts);
          expect(entries.map((e) => e.value)).toEqual(JSON.parse(text).products);
          expect(entries.every((e) => Object.keys(e.errors).length === 0)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses what JSON.parse refuses, saying where', () => {
    for (const text of [
      '',
      '{"products": [',
      '{"products":[01]}',
      '{"products":[1,]}',
      '{"products":["\t"]}',
      '{"products":["\\x"]}',
      '{"products":[tru]}',
      '{"products":[1.]}',
      '{"products":[]} x',
      'hello',
    ]) {
      expect(() => JSON.parse(text)).toThrow();
      expect(failure(text), text).toMatch(/ at byte \d+$/);
    }
    expect(failure('{"products": [')).toBe('Unexpected end of the file at byte 14');
  });

  it('refuses other shapes', () => {
    for (const text of [
      '[]',
      '{}',
      '{"items": []}',
      '{"products": {}}',
      '{"products": [], "products": []}',
      '"products"',
      'null',
    ]) {
      expect(failure(text), text).toBe(SHAPE_MESSAGE);
    }
  });

  it('does not decode a text beyond the bound: its path gets the error, the rest of the entry is read', () => {
    const name = 'é'.repeat(MAX_TEXT_BYTES);
    const [entry, next] = read(
      JSON.stringify({ products: [{ sku: 'A', steps: [{ name, order: 1 }] }, { sku: 'B' }] }),
      [7, 5000, 9000],
    );
    expect(entry!.value).toEqual({ sku: 'A', steps: [{ name: '', order: 1 }] });
    expect(entry!.errors).toEqual({
      'products.0.steps.0.name': [
        `The name must not be greater than ${MAX_TEXT_BYTES} bytes in an import file (it has ${2 * MAX_TEXT_BYTES}).`,
      ],
    });
    expect(next!.value).toEqual({ sku: 'B' });
  });

  it('decodes the longest text the catalogue accepts, every character written as escapes', () => {
    // 1000 astral characters (a rule's longest message), each a \u-escaped surrogate pair: 12 bytes each.
    const message = '😀'.repeat(1000);
    const escaped = message.replace(/[\s\S]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const [entry] = read(`{"products": [{"sku": "A", "rules": [{"message": "${escaped}"}]}]}`, [4096]);
    expect(entry!.errors).toEqual({});
    expect(entry!.value).toEqual({ sku: 'A', rules: [{ message }] });
  });

  it('keeps "__proto__" an own property, as JSON.parse does', () => {
    const [entry] = read('{"products": [{"__proto__": {"polluted": true}}]}');
    expect(Object.getPrototypeOf(entry!.value)).toBe(Object.prototype);
    expect(Object.keys(entry!.value as object)).toEqual(['__proto__']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
