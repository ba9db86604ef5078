import { useResponseCache } from '@graphql-yoga/plugin-response-cache';
import { getOperationAST, isObjectType, OperationTypeNode, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext, PublicFields } from '../context.ts';
import { cacheSessionOf, responseCacheKey, type ResponseStore } from '../response-cache.ts';
import { useOriginalDocument } from './use-original-document.ts';

/**
 * Time to live per schema coordinate: 0 (never cached) for every field not declared public, so a
 * per-caller field added later is private until a module says otherwise. The query root itself
 * holds no data: its fields decide.
 */
export function privateCoordinates(
  schema: GraphQLSchema,
  publicFields: readonly PublicFields[],
): Record<string, number> {
  const allowed = new Set(
    publicFields.flatMap((fields) =>
      Object.entries(fields).flatMap(([type, names]) => names.map((n) => `${type}.${n}`)),
    ),
  );
  const queryType = schema.getQueryType()?.name;
  const ttls: Record<string, number> = { 'Query.__schema': 0, 'Query.__type': 0 };
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const names = Object.keys(type.getFields());
    const privateNames = names.filter((name) => !allowed.has(`${type.name}.${name}`));
    for (const name of privateNames) ttls[`${type.name}.${name}`] = 0;
    if (type.name !== queryType && privateNames.length === names.length) ttls[type.name] = 0;
  }
  return ttls;
}

/**
 * Yoga's response cache over the shared store. Requests reach Yoga authenticated; the cache key holds
 * the caller's scopes, so an answer is only served to a caller allowed exactly what its first caller
 * was (refusals carry errors and are never stored). Mutations are never stored; each answers once
 * this instance has applied the change notifications it caused, so a writer reads its own write.
 */
export function useSharedResponseCache(
  store: ResponseStore,
  schema: GraphQLSchema,
  publicFields: readonly PublicFields[],
): Plugin[] {
  const ttlPerSchemaCoordinate = privateCoordinates(schema, publicFields);
  return [
    useOriginalDocument(),
    useResponseCache<GraphQLContext>({
      cache: store,
      session: (_request, context) => cacheSessionOf(context.session.scopes),
      enabled: () => store.available,
      ttlPerSchemaCoordinate,
      ignoredTypes: Object.keys(ttlPerSchemaCoordinate).filter((coordinate) => !coordinate.includes('.')),
      invalidateViaMutation: false,
      includeExtensionMetadata: false,
      buildResponseCacheKey: ({ documentString, variableValues, operationName, sessionId }) =>
        responseCacheKey(sessionId ?? '', operationName, documentString, variableValues),
    }),
    {
      onExecute({ args }) {
        if (getOperationAST(args.document, args.operationName)?.operation === OperationTypeNode.MUTATION) {
          // The write's own notifications drop what it changed, here as on every instance; the answer
          // waits for them, so the writer's next read is fresh.
          store.passOver();
          return { onExecuteDone: () => store.catchUp() };
        }
        if (store.available) {
          store.countMiss();
          store.takeOff();
        }
        return undefined;
      },
      onResponse() {
        store.land();
      },
    },
  ];
}
