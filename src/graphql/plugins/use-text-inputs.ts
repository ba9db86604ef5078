import {
  getNamedType,
  getOperationAST,
  getVariableValues,
  isInterfaceType,
  isObjectType,
  Kind,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { attributeOf, findForbiddenText, forbiddenTextMessage, hasForbiddenText } from '../../platform/text.ts';
import { argumentsOf, fragmentsOf } from '../cost.ts';

// Every string argument of every operation, literal or variable, refused before execution when it holds a
// NUL, a lone surrogate or a non-character (src/platform/text.ts): one place for every resolver, present and future.

/** Any string literal (block strings included) with a forbidden character; names cannot hold one. */
export function documentHasForbiddenText(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    StringValue(node) {
      if (hasForbiddenText(node.value)) found = true;
    },
  });
  return found;
}

interface Finding {
  field: FieldNode;
  validation: Record<string, string[]>;
}

/** Only once something was found: which field's arguments hold it, by argument path (Lighthouse's `input.steps.0.name`). */
function locate(
  schema: GraphQLSchema,
  fragments: Map<string, FragmentDefinitionNode>,
  selectionSet: SelectionSetNode,
  parent: GraphQLNamedType | undefined,
  variables: Record<string, unknown>,
  seen = new Set<string>(),
): Finding | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const def =
        parent && (isObjectType(parent) || isInterfaceType(parent))
          ? parent.getFields()[selection.name.value]
          : undefined;
      if (!def) continue;
      const args = argumentsOf(def, selection, variables);
      const paths = args ? findForbiddenText(args) : [];
      if (paths.length > 0) {
        const validation: Record<string, string[]> = {};
        for (const path of paths) validation[path.join('.')] = [forbiddenTextMessage(attributeOf(path))];
        return { field: selection, validation };
      }
      if (selection.selectionSet) {
        const inner = locate(schema, fragments, selection.selectionSet, getNamedType(def.type), variables, seen);
        if (inner) return inner;
      }
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
      const inner = locate(schema, fragments, selection.selectionSet, type, variables, seen);
      if (inner) return inner;
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || seen.has(name)) continue;
      seen.add(name);
      const inner = locate(
        schema,
        fragments,
        fragment.selectionSet,
        schema.getType(fragment.typeCondition.name.value),
        variables,
        seen,
      );
      if (inner) return inner;
    }
  }
  return undefined;
}

export function useTextInputs(): Plugin {
  // Documents come from Yoga's parse cache: their literals are scanned once.
  const literals = new WeakMap<DocumentNode, boolean>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      let inLiterals = literals.get(args.document);
      if (inLiterals === undefined) {
        inLiterals = documentHasForbiddenText(args.document);
        literals.set(args.document, inLiterals);
      }
      // The common case: one pass over the variables as sent, nothing found.
      if (!inLiterals && findForbiddenText(args.variableValues ?? {}, 1).length === 0) return;

      const operation = getOperationAST(args.document, args.operationName);
      let finding: Finding | undefined;
      if (operation) {
        const coerced = getVariableValues(
          args.schema,
          operation.variableDefinitions ?? [],
          (args.variableValues ?? {}) as Record<string, unknown>,
        );
        const root = args.schema.getRootType(operation.operation) ?? undefined;
        if (!coerced.errors)
          finding = locate(args.schema, fragmentsOf(args.document), operation.selectionSet, root, coerced.coerced);
      }
      const error = finding
        ? createGraphQLError(`Validation failed for the field [${finding.field.name.value}].`, {
            nodes: [finding.field],
            path: [finding.field.alias?.value ?? finding.field.name.value],
            extensions: { code: 'BAD_USER_INPUT', validation: finding.validation },
          })
        : // Elsewhere (a variable no argument uses, a directive): no argument path to name.
          createGraphQLError('Text inputs must not contain NUL bytes, unpaired surrogates or Unicode non-characters.', {
            extensions: { code: 'BAD_USER_INPUT' },
          });
      setResultAndStopExecution({ data: null, errors: [error] });
    },
  };
}
