import {
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

// What a value will weigh in the answer's JSON text, computed from the value a resolver is about to hand
// over and the selection it will be answered with, before GraphQL builds any of it: keys as aliased,
// strings as escaped, in UTF-8. A field with a resolver of its own adds only its key here; that resolver
// weighs its own value when it runs, so nothing is weighed twice and nothing built goes unweighed.

/** No character JSON escapes (quotes, backslashes, control characters) and no surrogate: UTF-8 as it is. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const UNESCAPED = /^[^"\\\x00-\x1f\ud800-\udfff]*$/;
/** What JSON.stringify escapes, and lone surrogates (escaped as \uXXXX; paired ones are plain UTF-8). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const ESCAPED = /["\\\x00-\x1f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** \b \t \n \f \r: two bytes; every other control character is a six-byte \u00XX. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/** UTF-8 bytes of `text` as JSON.stringify writes it, quotes included. */
export function jsonStringBytes(text: string): number {
  // Short strings (most names, every id) are checked in place: printable ASCII is a byte a character.
  if (text.length <= 32) {
    let i = 0;
    for (let c = text.charCodeAt(0); i < text.length; c = text.charCodeAt(++i)) {
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) break;
    }
    if (i === text.length) return i + 2;
  }
  // Counted natively; a lone surrogate counts 3 there (U+FFFD), an escape 1: the difference is added below.
  let bytes = Buffer.byteLength(text, 'utf8') + 2;
  if (UNESCAPED.test(text)) return bytes;
  for (const [found] of text.matchAll(ESCAPED)) {
    const c = found.charCodeAt(0);
    bytes += c === 0x22 || c === 0x5c || SHORT_ESCAPES.has(c) ? 1 : c < 0x20 ? 5 : 3;
  }
  return bytes;
}

/** UTF-8 bytes of a plain value (what an error's extensions carry) as JSON.stringify writes it. */
export function jsonBytes(value: unknown): number {
  if (value === null || value === undefined) return 4;
  if (typeof value === 'string') return jsonStringBytes(value);
  if (typeof value === 'number') return numberBytes(value);
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (Array.isArray(value))
    return value.reduce((bytes: number, item) => bytes + jsonBytes(item), 1 + Math.max(1, value.length));
  if (typeof value === 'object') {
    let bytes = 1;
    let members = 0;
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined || typeof member === 'function') continue;
      bytes += jsonStringBytes(key) + 2 + jsonBytes(member);
      members++;
    }
    return members ? bytes : 2;
  }
  return 4;
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
}

/** The bytes of a value of one type answered with one selection. */
type Weigher = (value: unknown) => number;

/**
 * Weighers by the first node of the field they answer (stable for a document) and the type: built once per
 * document, then a list of 5,000 rows is weighed without walking the selection again.
 */
const weighers = new WeakMap<FieldNode, Map<GraphQLOutputType, Weigher>>();

function applies(walk: Walk, type: GraphQLObjectType, condition: string | undefined): boolean {
  if (condition === undefined || condition === type.name) return true;
  const abstract = walk.schema.getType(condition);
  return abstract !== undefined && isAbstractType(abstract) && walk.schema.isSubType(abstract, type);
}

function collect(
  walk: Walk,
  type: GraphQLObjectType,
  set: SelectionSetNode | undefined,
  out: Map<string, FieldNode[]>,
  seen: Set<string>,
): void {
  for (const selection of set?.selections ?? []) {
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      const group = out.get(key);
      if (group) group.push(selection);
      else out.set(key, [selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (applies(walk, type, selection.typeCondition?.name.value))
        collect(walk, type, selection.selectionSet, out, seen);
    } else if (!seen.has(selection.name.value)) {
      const fragment = walk.fragments[selection.name.value];
      if (!fragment || !applies(walk, type, fragment.typeCondition.name.value)) continue;
      // Validation refuses cycles; `seen` only keeps a hostile document linear.
      seen.add(selection.name.value);
      collect(walk, type, fragment.selectionSet, out, seen);
      seen.delete(selection.name.value);
    }
  }
}

/** Characters of a number as JSON writes it, without making the string for integers and prices (cents). */
function numberBytes(n: number): number {
  const cents = Math.round(n * 100);
  // Below 1e11 (prices stop at 1e10) a double is exact to far less than a cent, so a number that is its own
  // two-decimal rounding prints, as the shortest round trip, with at most those two decimals.
  if (!(Math.abs(n) < 1e11) || cents / 100 !== n) {
    return Number.isFinite(n) ? String(n).length : 4;
  }
  const whole = Math.trunc(Math.abs(n));
  let bytes = n < 0 && !Object.is(n, -0) ? 2 : 1;
  for (let rest = whole; rest >= 10; rest = Math.floor(rest / 10)) bytes++;
  const fraction = Math.abs(cents) % 100;
  return bytes + (fraction === 0 ? 0 : fraction % 10 === 0 ? 2 : 3);
}

function leafBytes(type: GraphQLLeafType, value: unknown): number {
  // String, ID, the enums (named as they are stored) and Decimal answer a string as it is.
  if (typeof value === 'string') return jsonStringBytes(value);
  if (typeof value === 'number') return numberBytes(value);
  if (typeof value === 'boolean') return value ? 4 : 5;
  try {
    return jsonBytes(type.serialize(value));
  } catch {
    return 4;
  }
}

function objectWeigher(walk: Walk, type: GraphQLObjectType, nodes: readonly FieldNode[]): Weigher {
  const keys = new Map<string, FieldNode[]>();
  for (const node of nodes) collect(walk, type, node.selectionSet, keys, new Set());
  const fields = type.getFields();
  // `"key":` and the comma (or closing brace) after the value, plus what is known without the value.
  let fixed = keys.size === 0 ? 2 : 1;
  const weighed: { name: string; weigh: Weigher }[] = [];
  for (const [key, group] of keys) {
    fixed += jsonStringBytes(key) + 2;
    const name = group[0]!.name.value;
    const field = fields[name];
    if (!field)
      fixed += jsonStringBytes(type.name); // __typename
    // A field with a resolver of its own: that resolver weighs its value.
    else if (!field.resolve) weighed.push({ name, weigh: weigherOf(walk, field.type, group) });
  }
  return (value) => {
    if (value === null || value === undefined) return 4;
    let bytes = fixed;
    for (const { name, weigh } of weighed) bytes += weigh((value as Record<string, unknown>)[name]);
    return bytes;
  };
}

function build(walk: Walk, type: GraphQLOutputType, nodes: readonly FieldNode[]): Weigher {
  if (isNonNullType(type)) return weigherOf(walk, type.ofType, nodes);
  if (isListType(type)) {
    const item = weigherOf(walk, type.ofType, nodes);
    return (value) => {
      if (value === null || value === undefined) return 4;
      const items = Array.isArray(value) ? value : [...(value as Iterable<unknown>)];
      let bytes = 1 + Math.max(1, items.length);
      for (const x of items) bytes += item(x);
      return bytes;
    };
  }
  // RFC 3339 in UTC with milliseconds: always 24 characters (graphql-scalars' DateTime).
  if (type.name === 'DateTime') return (value) => (value === null || value === undefined ? 4 : 26);
  if (isLeafType(type)) return (value) => (value === null || value === undefined ? 4 : leafBytes(type, value));
  if (isObjectType(type)) return objectWeigher(walk, type, nodes);
  // An abstract type (federation's _Entity): the resolvers of its members' lists weigh what they add.
  return () => 0;
}

function weigherOf(walk: Walk, type: GraphQLOutputType, nodes: readonly FieldNode[]): Weigher {
  let byType = weighers.get(nodes[0]!);
  if (!byType) weighers.set(nodes[0]!, (byType = new Map<GraphQLOutputType, Weigher>()));
  let weigher = byType.get(type);
  if (!weigher) byType.set(type, (weigher = build(walk, type, nodes)));
  return weigher;
}

/** Bytes `value` adds to the answer as the value of the field `info` resolves (its key is its parent's). */
export function answerBytes(
  value: unknown,
  info: Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'fieldNodes' | 'returnType'>,
): number {
  return weigherOf({ schema: info.schema, fragments: info.fragments }, info.returnType, info.fieldNodes)(value);
}
