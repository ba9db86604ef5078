import fc from 'fast-check';
import { buildSchema, execute, parse, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { answerBytes, jsonBytes, jsonStringBytes } from '../../src/modules/catalog/answer-weight.ts';

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
/** Any UTF-16 code unit: lone surrogates and control characters included. */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });

describe('what JSON text weighs', () => {
  it('a string: as JSON.stringify writes it in UTF-8, escapes, surrogate pairs and lone surrogates included', () => {
    for (const s of ['', 'plain', '"\\', '\n\t\u0001\u001f', 'é橡🪵', '\ud800x', '\udfff', '\u2028']) {
      expect(jsonStringBytes(s), JSON.stringify(s)).toBe(bytesOf(s));
    }
    fc.assert(fc.property(anyText, (s) => jsonStringBytes(s) === bytesOf(s)));
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => jsonStringBytes(s) === bytesOf(s)));
  });

  it('a plain value (an error’s extensions): as JSON.stringify writes it', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => jsonBytes(v) === bytesOf(v)));
    // Numbers: prices (cents), integers, any double, NaN and the infinities (null in JSON).
    const numbers = fc.oneof(
      fc.integer({ min: -1e13, max: 1e13 }).map((cents) => cents / 100),
      fc.integer(),
      fc.double(),
    );
    fc.assert(fc.property(numbers, (n) => jsonBytes(n) === bytesOf(n)));
    expect(jsonBytes({ a: undefined, b: [undefined, null], c: [] })).toBe(
      bytesOf({ a: undefined, b: [undefined, null], c: [] }),
    );
  });
});

describe('what an answer weighs, before it is built', () => {
  const schema = buildSchema(`
    type Query { items: [Item!]! }
    type Item { id: ID! name: String! price: Float tags: [String!]! child: Item later: [Item!]! }
  `);
  const items = fc.array(
    fc.record({
      id: fc.nat().map(String),
      name: anyText,
      price: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
      tags: fc.array(anyText, { maxLength: 3 }),
    }),
    { maxLength: 5 },
  );
  const query = `{ items { ...F alias: name id ... on Item { tags child { __typename id } } } }
    fragment F on Item { id price }`;
  const document = parse(query);

  /** Runs the query over `data`, capturing the info the `items` resolver gets. */
  function run(data: unknown[]) {
    let info: GraphQLResolveInfo | undefined;
    const result = execute({
      schema,
      document,
      rootValue: {
        // graphql's default resolver calls a root function with (args, context, info).
        items: (_args: unknown, _ctx: unknown, i: GraphQLResolveInfo) => ((info = i), data),
      },
    });
    return { result, info: info! };
  }

  it('is the bytes of the list as graphql answers it: aliases, fragments, merged fields, nulls', () => {
    fc.assert(
      fc.property(items, (data) => {
        const withChild = data.map((item, i) => ({ ...item, child: i % 2 ? { id: `${i}` } : null }));
        const { result, info } = run(withChild);
        const answered = bytesOf((result as { data: { items: unknown } }).data.items);
        expect(answerBytes(withChild, info)).toBe(answered);
      }),
    );
  });

  it('counts only the key of a field with a resolver of its own: that resolver weighs its value', () => {
    const withResolver = buildSchema(`type Query { items: [Item!]! } type Item { id: ID! later: [Item!]! }`);
    (withResolver.getType('Item') as GraphQLObjectType).getFields()['later']!.resolve = () => [];
    let info: GraphQLResolveInfo | undefined;
    // Synchronous: every resolver here returns a plain value.
    void execute({
      schema: withResolver,
      document: parse('{ items { id later { id } } }'),
      rootValue: { items: (_a: unknown, _c: unknown, i: GraphQLResolveInfo) => ((info = i), []) },
    });
    // [{"id":"1","later":}] : the value of `later` is its resolver's to weigh.
    expect(answerBytes([{ id: '1', later: [{ id: 'never read' }] }], info!)).toBe('[{"id":"1","later":}]'.length);
  });
});
