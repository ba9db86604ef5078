import {
  getArgumentValues,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * Each field costs 1; a list field multiplies its selection by `first` or by `_entities`' representations,
 * coerced from the request's variables as they will execute. Other lists count once: the catalogue sets their length.
 */

type Variables = Record<string, unknown>;

export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
}

export function rootType(schema: GraphQLSchema, operation: OperationDefinitionNode) {
  return schema.getRootType(operation.operation) ?? undefined;
}

function fieldDefinition(
  parent: GraphQLNamedType | undefined,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === '__schema') return SchemaMetaFieldDef;
  if (name === '__type') return TypeMetaFieldDef;
  return parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined;
}

/** A field's coerced arguments, or undefined when they do not coerce (execution reports that). */
export function argumentsOf(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Variables) {
  try {
    return getArgumentValues(field, node, variables);
  } catch {
    return undefined;
  }
}

function itemsRequested(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Variables,
  maxPageSize: number,
): number {
  const hasFirst = field.args.some((a) => a.name === 'first');
  const isEntities = field.name === '_entities';
  if (!hasFirst && !isEntities) return 1;
  const args = argumentsOf(field, node, variables);
  if (isEntities) return Array.isArray(args?.['representations']) ? args['representations'].length : 1;
  const first = args?.['first'];
  // The resolver refuses sizes outside 1..maxPageSize; pricing them at the bounds keeps its message reachable.
  return typeof first === 'number' ? Math.min(Math.max(first, 1), maxPageSize) : maxPageSize;
}

export function operationCost(
  schema: GraphQLSchema,
  fragments: Map<string, FragmentDefinitionNode>,
  operation: OperationDefinitionNode,
  variables: Variables,
  maxPageSize: number,
): number {
  // Memoised so nested spreads cost linear time; a cycle counts 0 (validation refuses cycles anyway).
  const fragmentCosts = new Map<string, number>();

  function selectionSetCost(set: SelectionSetNode, parent: GraphQLNamedType | undefined): number {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        total += 1;
        if (!selection.selectionSet) continue;
        const field = fieldDefinition(parent, selection.name.value);
        const childCost = selectionSetCost(selection.selectionSet, field && getNamedType(field.type));
        total += (field ? itemsRequested(field, selection, variables, maxPageSize) : 1) * childCost;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        total += selectionSetCost(selection.selectionSet, type ?? undefined);
      } else {
        total += fragmentCost(selection.name.value);
      }
    }
    return total;
  }

  function fragmentCost(name: string): number {
    const known = fragmentCosts.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    fragmentCosts.set(name, 0);
    const cost = fragment
      ? selectionSetCost(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined)
      : 0;
    fragmentCosts.set(name, cost);
    return cost;
  }

  return selectionSetCost(operation.selectionSet, rootType(schema, operation));
}
