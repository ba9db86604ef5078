import type { Resolvers } from './generated/resolvers-types.ts';

/** `me`: the session, as authentication resolved it. Not @sharedCache, so never shared by the response cache. */
export const authResolvers: Resolvers = {
  Query: {
    async me(_, __, { session, auth }) {
      const { user, tokenId, abilities, expiresAt } = session;
      return {
        user: { id: user.id, name: user.name, email: user.email, isAdmin: user.isAdmin },
        // A token revoked since authentication still answers for this request: name it as it was.
        token: { id: tokenId, name: (await auth.tokenName(tokenId)) ?? '', abilities: [...abilities], expiresAt },
      };
    },
  },
};
