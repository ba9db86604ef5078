import { documentHash } from '../plugins/use-trusted-documents.ts';
import { postParams } from '../post-params.ts';

/** What a POST body naming a trusted document holds; anything else is Yoga's to answer. */
export interface IdRequest {
  hash: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

const ID_PARAMS = new Set(['documentId', 'extensions', 'variables', 'operationName']);

export function idRequestOf(body: Buffer): IdRequest | undefined {
  const params = postParams(body, ID_PARAMS);
  if (!params) return undefined;
  const { documentId, extensions, variables, operationName } = params;
  if (
    extensions != null &&
    (typeof extensions !== 'object' || Object.keys(extensions).some((k) => k !== 'persistedQuery'))
  )
    return undefined;
  const hash = documentHash(documentId, extensions);
  if (hash === null) return undefined;
  return {
    hash,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: (operationName ?? undefined) as string | undefined,
  };
}
