import type { GraphQLContext } from '../../graphql/context.ts';
import { findTokenName } from './repository.ts';
import type { AuthDb } from './tables.ts';

export interface AuthContext {
  auth: { tokenName(tokenId: string): Promise<string | undefined> };
}

export type AuthRequestContext = GraphQLContext & AuthContext;

/** Per request: the one read `me` needs beyond the session authentication already loaded. */
export const createAuthRequest = (db: AuthDb): AuthContext => ({ auth: { tokenName: (id) => findTokenName(db, id) } });
