import type { GraphQLContext } from '../../graphql/context.ts';
import { findTokenName } from './repository.ts';
import type { AuthDb } from './tables.ts';

export interface AuthContext {
  auth: { tokenName(tokenId: string): Promise<string | undefined> };
}

/** Per request: the one read `me` needs beyond the session authentication already loaded. */
export const createAuthRequest = (db: AuthDb): AuthContext => ({ auth: { tokenName: (id) => findTokenName(db, id) } });

/** `me`: the session, as authentication resolved it. Not @sharedCache, so never shared by the response cache. */
export const authResolvers = {
  Query: {
    async me(_: unknown, __: unknown, { session, auth }: GraphQLContext & AuthContext) {
      const { user, tokenId, abilities, expiresAt } = session;
      return {
        user: { id: user.id, name: user.name, email: user.email, isAdmin: user.isAdmin },
        // A token revoked since authentication still answers for this request: name it as it was.
        token: { id: tokenId, name: (await auth.tokenName(tokenId)) ?? '', abilities: [...abilities], expiresAt },
      };
    },
  },
};
