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
const UNESCAPED = /^[^"\\\x00-\x1f\ud800-\udfff]*$/;
/** What JSON.stringify escapes, and lone surrogates (escaped as \uXXXX; paired ones are plain UTF-8). */
const ESCAPED = /["\\\x00-\x1f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** \b \t \n \f \r: two bytes; every other control character is a six-byte \u00XX. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/** UTF-8 bytes of `text` as JSON.stringify writes it, quotes included. */
export function jsonStringBytes(text: string): number {
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
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).length : 4;
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

/** One response key of an object's selection. */
interface Entry {
  /** `"key":` and the comma (or closing brace) after the value. */
  keyBytes: number;
  name: string;
  /** Undefined for __typename. */
  type: GraphQLOutputType | undefined;
  nodes: FieldNode[];
  /** The field has a resolver of its own, which weighs its value. */
  elsewhere: boolean;
}

/** Plans by the first node of the field they answer (stable for a document) and the object type. */
const plans = new WeakMap<FieldNode, Map<GraphQLObjectType, readonly Entry[]>>();

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

function planOf(walk: Walk, type: GraphQLObjectType, nodes: readonly FieldNode[]): readonly Entry[] {
  let byType = plans.get(nodes[0]!);
  if (!byType) plans.set(nodes[0]!, (byType = new Map<GraphQLObjectType, readonly Entry[]>()));
  let plan = byType.get(type);
  if (plan) return plan;
  const keys = new Map<string, FieldNode[]>();
  for (const node of nodes) collect(walk, type, node.selectionSet, keys, new Set());
  const fields = type.getFields();
  plan = [...keys].map(([key, group]) => {
    const name = group[0]!.name.value;
    const field = fields[name];
    return { keyBytes: jsonStringBytes(key) + 2, name, type: field?.type, nodes: group, elsewhere: !!field?.resolve };
  });
  byType.set(type, plan);
  return plan;
}

function leafBytes(type: GraphQLLeafType, value: unknown): number {
  // RFC 3339 in UTC with milliseconds: always 24 characters (graphql-scalars' DateTime).
  if (type.name === 'DateTime') return 26;
  // String, ID, the enums (named as they are stored) and Decimal answer a string as it is.
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return jsonBytes(value);
  try {
    return jsonBytes(type.serialize(value));
  } catch {
    return 4;
  }
}

function weighObject(walk: Walk, value: Record<string, unknown>, type: GraphQLObjectType, nodes: readonly FieldNode[]) {
  const plan = planOf(walk, type, nodes);
  if (plan.length === 0) return 2;
  let bytes = 1;
  for (const entry of plan) {
    bytes += entry.keyBytes;
    if (!entry.type) bytes += jsonStringBytes(type.name);
    else if (!entry.elsewhere) bytes += weigh(walk, value[entry.name], entry.type, entry.nodes);
  }
  return bytes;
}

function weigh(walk: Walk, value: unknown, type: GraphQLOutputType, nodes: readonly FieldNode[]): number {
  if (isNonNullType(type)) return weigh(walk, value, type.ofType, nodes);
  if (value === null || value === undefined) return 4;
  if (isListType(type)) {
    const items = Array.isArray(value) ? value : [...(value as Iterable<unknown>)];
    let bytes = 1 + Math.max(1, items.length);
    for (const item of items) bytes += weigh(walk, item, type.ofType, nodes);
    return bytes;
  }
  if (isLeafType(type)) return leafBytes(type, value);
  if (isObjectType(type)) return weighObject(walk, value as Record<string, unknown>, type, nodes);
  // An abstract type (federation's _Entity): the resolvers of its members' lists weigh what they add.
  return 0;
}

/** Bytes `value` adds to the answer as the value of the field `info` resolves (its key is its parent's). */
export function answerBytes(
  value: unknown,
  info: Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'fieldNodes' | 'returnType'>,
): number {
  return weigh({ schema: info.schema, fragments: info.fragments }, value, info.returnType, info.fieldNodes);
}
