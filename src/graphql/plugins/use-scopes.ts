import { defaultProtectSingleValidateFn, useGenericAuth } from '@envelop/generic-auth';
import type { Plugin } from 'graphql-yoga';
import type { Session } from '../../platform/session.ts';
import type { GraphQLContext } from '../context.ts';
import { forbiddenFieldError } from '../errors.ts';

/**
 * `@requiresScopes` (on a field, or on the type that owns it) enforced before anything executes:
 * a selection the request's scopes do not cover refuses the whole operation with FORBIDDEN.
 * Authentication itself happened once, in the dispatcher; this only reads the session's scopes.
 */
export function useScopes(): Plugin<GraphQLContext> {
  return useGenericAuth<Session, GraphQLContext, 'session'>({
    mode: 'protect-granular',
    contextFieldName: 'session',
    resolveUserFn: (context) => context.session,
    extractScopes: (session) => [...session.scopes],
    validateUser(params) {
      if (!defaultProtectSingleValidateFn(params)) return undefined;
      return forbiddenFieldError(params.fieldNode, [...(params.typeScopes ?? []), ...(params.fieldScopes ?? [])]);
    },
  }) as Plugin<GraphQLContext>;
}
