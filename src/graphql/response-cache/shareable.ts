import {
  isObjectType,
  OperationTypeNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  BREAK,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { createDocumentCache } from '../parse-caches.ts';

/** The directive (declared in schema/base.graphql) on a field whose answer is the same for every caller. */
export const SHARED_CACHE_DIRECTIVE = 'sharedCache';

/** `Type.field` of every field the SDL marks @sharedCache. A field added without it is never shared. */
export function sharedFields(schema: GraphQLSchema): ReadonlySet<string> {
  const shared = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.astNode?.directives?.some((d) => d.name.value === SHARED_CACHE_DIRECTIVE))
        shared.add(`${type.name}.${field.name}`);
    }
  }
  return shared;
}

/**
 * Whether answers to a document may be shared: a query selecting only shared fields (and
 * `__typename`) anywhere in the document. Decided once per document text when it is given (execution
 * sees a fresh copy of the parsed document on every request: generic-auth rewrites it), else once per
 * parsed document.
 */
export function createShareability(schema: GraphQLSchema, shared: ReadonlySet<string> = sharedFields(schema)) {
  const decided = new WeakMap<DocumentNode, boolean>();
  const byText = createDocumentCache<boolean>();
  return (document: DocumentNode, text?: string): boolean => {
    let answer = text === undefined ? decided.get(document) : byText.get(text);
    if (answer === undefined) {
      answer = onlySharedFields(schema, shared, document);
      if (text === undefined) decided.set(document, answer);
      else byText.set(text, answer);
    }
    return answer;
  };
}

function onlySharedFields(schema: GraphQLSchema, shared: ReadonlySet<string>, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let ok = true;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      OperationDefinition(node) {
        if (node.operation !== OperationTypeNode.QUERY) {
          ok = false;
          return BREAK;
        }
        return undefined;
      },
      Field(node) {
        if (node.name.value === '__typename') return undefined;
        const parent = typeInfo.getParentType();
        if (!parent || !shared.has(`${parent.name}.${node.name.value}`)) {
          ok = false;
          return BREAK;
        }
        return undefined;
      },
    }),
  );
  return ok;
}
