import { defaultProtectSingleValidateFn } from '@envelop/generic-auth';
import { getDirectiveExtensions } from '@graphql-tools/utils';
import {
  getNamedType,
  getVariableValues,
  isIntrospectionType,
  isObjectType,
  isUnionType,
  Kind,
  OperationTypeNode,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type Source,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Config } from '../../config.ts';
import type { Session } from '../../platform/session.ts';
import { findForbiddenText } from '../../platform/text.ts';
import { fragmentsOf, operationCost } from '../cost.ts';
import { isFederationField, rootFields } from '../federation.ts';
import { documentRefusals } from '../plugins/use-graphql-limits.ts';
import { documentHasForbiddenText } from '../plugins/use-text-inputs.ts';

/** A field's scope and policy requirements, as @envelop/generic-auth reads them. */
type ScopeCheck = Omit<
  Parameters<typeof defaultProtectSingleValidateFn>[0],
  'user' | 'userScopes' | 'userPolicies' | 'path' | 'executionArgs'
>;

/** A trusted document as this path runs it: checked, compiled and its scope requirements listed, once. */
export interface CompiledDocument {
  operation: OperationDefinitionNode;
  name: string | null;
  fragments: Map<string, FragmentDefinitionNode>;
  query: CompiledQuery;
  source: Source | undefined;
  shareable: boolean;
  checks: ScopeCheck[];
  /** By the caller's scopes: whether they cover every field (a few sets of scopes per deployment). */
  allowed: Map<string, boolean>;
}

const MAX_SCOPE_SETS = 64;

/** Every field a document may select, with its scope requirements (generic-auth checks those the variables include: a subset). */
function scopeChecks(schema: GraphQLSchema, document: DocumentNode): ScopeCheck[] {
  const checks: ScopeCheck[] = [];
  const typeInfo = new TypeInfo(schema);
  const add = (fieldNode: FieldNode, parentType: GraphQLObjectType) => {
    const field = parentType.getFields()[fieldNode.name.value];
    if (!field) return;
    const typeDirectives = getDirectiveExtensions(parentType, schema);
    const fieldDirectives = getDirectiveExtensions(field, schema);
    checks.push({
      fieldNode,
      parentType,
      field,
      typeDirectives,
      fieldDirectives,
      typeAuthArgs: typeDirectives['authenticated']?.[0],
      typeScopes: typeDirectives['requiresScopes']?.[0]?.['scopes'],
      typePolicies: typeDirectives['policy']?.[0]?.['policies'],
      fieldAuthArgs: fieldDirectives['authenticated']?.[0],
      fieldScopes: fieldDirectives['requiresScopes']?.[0]?.['scopes'],
      fieldPolicies: fieldDirectives['policy']?.[0]?.['policies'],
    });
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        const type = parent && getNamedType(parent);
        if (!type || isIntrospectionType(type)) return;
        if (isUnionType(type)) for (const member of type.getTypes()) add(node, member);
        else if (isObjectType(type)) add(node, type);
      },
    }),
  );
  return checks;
}

/**
 * The document ready to run here, or false (Yoga answers requests for it): one query operation, no
 * federation fields, within every limit and valid against the schema as it is now, compiled by graphql-jit.
 */
export function compileDocument(
  schema: GraphQLSchema,
  limits: Config['graphql'],
  text: string,
  shareable: (document: DocumentNode) => boolean,
): CompiledDocument | false {
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch {
    return false;
  }
  if (documentRefusals(schema, document, text, limits).length > 0) return false;
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations[0];
  if (operations.length !== 1 || operation?.operation !== OperationTypeNode.QUERY) return false;
  const fragments = fragmentsOf(document);
  if (rootFields(operation.selectionSet, fragments).some(isFederationField)) return false;
  if (documentHasForbiddenText(document)) return false;
  const query = compileQuery(schema, document, undefined, {});
  if (!isCompiledQuery(query)) return false;
  return {
    operation,
    name: operation.name?.value ?? null,
    fragments,
    query,
    source: document.loc?.source,
    shareable: shareable(document),
    checks: scopeChecks(schema, document),
    allowed: new Map(),
  };
}

/** Whether the caller's scopes cover every field the document may select: if not, Yoga decides (and refuses). */
export function scopesAllow(compiled: CompiledDocument, session: Session): boolean {
  const scopes = session.scopes.join(' ');
  let allowed = compiled.allowed.get(scopes);
  if (allowed === undefined) {
    const user = { user: session, userScopes: [...session.scopes], userPolicies: [] };
    allowed = compiled.checks.every((check) => !defaultProtectSingleValidateFn({ ...check, ...user } as never));
    if (compiled.allowed.size < MAX_SCOPE_SETS) compiled.allowed.set(scopes, allowed);
  }
  return allowed;
}

/** Whether the variables pass Yoga's checks: they coerce, hold no forbidden text, and cost within bounds. */
export function variablesPass(
  schema: GraphQLSchema,
  limits: Config['graphql'],
  compiled: CompiledDocument,
  variables: Record<string, unknown> | undefined,
): boolean {
  let coerced: Record<string, unknown> = {};
  if (compiled.operation.variableDefinitions?.length) {
    const result = getVariableValues(schema, compiled.operation.variableDefinitions, variables ?? {}, {
      maxErrors: 1,
    });
    if (result.errors) return false;
    coerced = result.coerced;
  }
  if (variables && findForbiddenText(variables, 1).length > 0) return false;
  return operationCost(schema, compiled.fragments, compiled.operation, coerced, limits.maxPageSize) <= limits.maxCost;
}
