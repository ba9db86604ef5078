import { documentHash } from '../plugins/use-trusted-documents.ts';

/** What a POST body naming a trusted document holds; anything else is Yoga's to answer. */
export interface IdRequest {
  hash: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

const ID_PARAMS = new Set(['documentId', 'extensions', 'variables', 'operationName']);

export function idRequestOf(body: Buffer): IdRequest | undefined {
  let params: unknown;
  try {
    params = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const { documentId, extensions, variables, operationName } = params as Record<string, unknown>;
  if (Object.keys(params).some((k) => !ID_PARAMS.has(k))) return undefined;
  if (
    extensions != null &&
    (typeof extensions !== 'object' || Object.keys(extensions).some((k) => k !== 'persistedQuery'))
  )
    return undefined;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  const hash = documentHash(documentId, extensions);
  if (hash === null) return undefined;
  return {
    hash,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: operationName ?? undefined,
  };
}
