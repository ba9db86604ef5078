/**
 * The parameters of a POST of JSON answered without Yoga (stored answers, the compiled path), or undefined
 * (Yoga answers it, with its own error for a bad one): an object holding no name outside `allowed`, its
 * variables an object if present, its operation name a string if present.
 */
export function postParams(body: Buffer, allowed: ReadonlySet<string>): Record<string, unknown> | undefined {
  if (body.length === 0) return undefined;
  let params: unknown;
  try {
    params = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const { variables, operationName } = params as Record<string, unknown>;
  if (Object.keys(params).some((k) => !allowed.has(k))) return undefined;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  return params as Record<string, unknown>;
}
