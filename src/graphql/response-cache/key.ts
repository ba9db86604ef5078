import { createHash, randomUUID } from 'node:crypto';
import { tenantKey } from '../../platform/tenancy.ts';

/** The key of a request whose variables cannot be serialised (nested past the stack): never stored. */
export const UNCACHEABLE = 'uncacheable:';

/** Who may share an answer: callers of one tenant allowed exactly the same. */
export const cacheSessionOf = (scopes: readonly string[]) => tenantKey([...scopes].sort().join(' '));

/** An answer's key: the caller's scopes and the request as sent (document, operation name, variables). */
export function responseCacheKey(
  sessionId: string,
  operationName: string | null | undefined,
  documentString: string,
  variableValues: unknown,
): string {
  let text: string;
  try {
    text = JSON.stringify([sessionId, operationName ?? null, documentString, variableValues ?? null]);
  } catch {
    return `${UNCACHEABLE}${randomUUID()}`;
  }
  return createHash('sha256').update(text).digest('base64url');
}

/** A strong validator of the answer's bytes: it changes when the answer does, and says nothing of the request. */
export const etagOf = (json: string) => `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;

/** If-None-Match's list against one strong validator (RFC 9110 13.1.2: weak comparison). */
export function etagMatches(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined || ifNoneMatch === null) return false;
  const opaque = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === opaque;
  });
}
