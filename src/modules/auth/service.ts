import type { Config } from '../../config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Session } from '../../platform/session.ts';
import { createHashLimiter } from './hash-limiter.ts';
import { login, logout, type LoginInput } from './login.ts';
import type { AuthDb } from './tables.ts';
import {
  createToken,
  issueToken,
  listTokens,
  pruneExpiredTokens,
  revokeToken,
  type AuthDeps,
  type CreateTokenInput,
} from './tokens.ts';
import { createUser, findUser, setPassword } from './users.ts';

export type { LoginResult } from './login.ts';
export type { TokenListing, TokenSummary } from './tokens.ts';
export { normaliseEmail } from './users.ts';

/** Users and tokens for the routes and the command line: login.ts, tokens.ts and users.ts, on one database. */
export function createAuthService(deps: {
  db: AuthDb;
  config: Config['auth'];
  logger: Logger;
  /** Called once a token of this process's is deleted, before the caller is answered. */
  onRevoke?: () => void;
}) {
  const shared: AuthDeps = { ...deps, onRevoke: deps.onRevoke ?? (() => {}) };
  const { db } = deps;
  // Password hashing (login, createUser, setPassword) shares one limiter: it bounds memory and connections.
  const hashLimiter = createHashLimiter(deps.config.passwordHash);
  return {
    issueToken: (userId: string, name: string) => issueToken(shared, userId, name),
    hashing: () => hashLimiter.stats,
    login: (input: LoginInput) => login(shared, hashLimiter, input),
    logout: (session: Session, ip: string) => logout(shared, session, ip),
    listTokens: (filter?: { userId?: string; currentTokenId?: string }) => listTokens(shared, filter),
    revokeToken: (tokenId: string, by?: { session: Session; ip: string }) => revokeToken(shared, tokenId, by),
    pruneExpiredTokens: (hours: number) => pruneExpiredTokens(shared, hours),
    createToken: (input: CreateTokenInput) => createToken(shared, input),
    createUser: (input: Parameters<typeof createUser>[2]) => createUser(db, hashLimiter, input),
    findUser: (email: string) => findUser(db, email),
    setPassword: (userId: string, password: string) => setPassword(db, hashLimiter, userId, password),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
