import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { safeEqual } from '../platform/secrets.ts';

/**
 * `_entities` turns a list of ids into whole entity trees, so the federation fields are for the gateway alone;
 * it proves itself with a shared secret in this header, which Hive Gateway and Apollo Router can send.
 */
export const GATEWAY_SECRET_HEADER = 'router-authorization';

const FEDERATION_FIELDS = new Set(['_entities', '_service']);

/** Whether a header value is the configured secret, compared in constant time. */
export function createGatewayCheck(secret: string | undefined): (header: string | null) => boolean {
  return (header) => secret !== undefined && header !== null && safeEqual(header, secret);
}

/** The fields an operation selects at its root, looking through fragments. */
export function rootFields(
  set: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      fields.push(...rootFields(selection.selectionSet, fragments, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment) fields.push(...rootFields(fragment.selectionSet, fragments, seen));
    }
  }
  return fields;
}

export function isFederationField(field: FieldNode): boolean {
  return FEDERATION_FIELDS.has(field.name.value);
}
