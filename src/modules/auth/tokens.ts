import type { Config } from '../../config.ts';
import { Forbidden, Unauthenticated, ValidationFailed } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Session } from '../../platform/session.ts';
import {
  countTokens,
  deleteExpiredTokens,
  deleteOldestLoginTokens,
  deleteTokenOwnedBy,
  findTokenKind,
  findTokens,
  insertToken,
  lockUserForTokens,
} from './repository.ts';
import type { AuthDb } from './tables.ts';
import { chainExpiries, formatBearerToken, generateSecret, hashSecret, tokenExpiry } from './token.ts';

// Tokens: issued at login, created from another token or by the CLI, listed, revoked and pruned.

/** What the auth service's parts (tokens, login, users) work with. */
export interface AuthDeps {
  db: AuthDb;
  config: Config['auth'];
  logger: Logger;
  /** Called once a token of this process's is deleted, before the caller is answered. */
  onRevoke: () => void;
}

export interface TokenSummary {
  id: string;
  name: string;
  abilities: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  current: boolean;
}

export interface TokenListing extends TokenSummary {
  /** The owner's. */
  email: string;
  /** The token's own end, as created; `expiresAt` is the sooner of it, its ancestors' and the instance lifetime. */
  ownExpiresAt: Date | null;
}

export interface CreateTokenInput {
  owner: { id: string };
  caller: { abilities: readonly string[]; expiresAt: Date | null; tokenId?: string };
  name: string;
  abilities?: readonly string[] | undefined;
  expiresAt?: Date | undefined;
  ip?: string;
}

/** The user holds MAX_TOKENS_PER_USER created tokens already: a 422 on `tokens`. */
const tokenLimitReached = (limit: number) =>
  new ValidationFailed({
    tokens: [`A user may hold at most ${limit} created tokens (login tokens aside). Revoke one first.`],
  });

/** A login token (a root, every ability); the user's oldest beyond MAX_LOGIN_TOKENS_PER_USER are revoked. */
export async function issueToken(deps: AuthDeps, userId: string, name: string): Promise<string> {
  const { db, config, logger } = deps;
  const secret = generateSecret(config.tokens.prefix);
  const { row, evicted } = await db.transaction().execute(async (trx) => {
    const inserted = await insertToken(trx, {
      userId,
      name,
      tokenHash: hashSecret(secret),
      expiresAt: null,
      kind: 'login',
    });
    return { row: inserted, evicted: await deleteOldestLoginTokens(trx, userId, config.tokens.maxLoginPerUser) };
  });
  if (evicted > 0) {
    deps.onRevoke();
    logger.info(
      { event: 'token.login-evicted', userId, count: evicted, limit: config.tokens.maxLoginPerUser },
      'oldest login tokens revoked',
    );
  }
  return formatBearerToken(String(row.id), secret);
}

/**
 * Tokens (never their hashes) in id order, of one user or of all; `expiresAt` is when each stops working,
 * its ancestors' ends and the instance lifetime counted. `current` marks the caller's own.
 */
export async function listTokens(
  deps: AuthDeps,
  filter: { userId?: string; currentTokenId?: string } = {},
): Promise<TokenListing[]> {
  const rows = await findTokens(deps.db, { userId: filter.userId });
  // A token's parent is its owner's: the listing of one user (or all) holds every ancestor.
  const ends = chainExpiries(rows, deps.config.tokens.expirationMinutes);
  return rows.map((row) => ({
    id: String(row.id),
    email: row.email,
    name: row.name,
    abilities: row.abilities,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: ends.get(String(row.id)) ?? null,
    ownExpiresAt: row.expires_at,
    current: String(row.id) === filter.currentTokenId,
  }));
}

/**
 * Deletes a token and the tokens created from it (ON DELETE CASCADE), as on logout; false when there is
 * none. By a session, administrators may revoke anyone's token, and to others another user's token looks
 * absent. Without one (the operator's shell), any token.
 */
export async function revokeToken(
  deps: AuthDeps,
  tokenId: string,
  by?: { session: Session; ip: string },
): Promise<boolean> {
  const user = by?.session.user;
  const deleted = await deleteTokenOwnedBy(deps.db, tokenId, user === undefined || user.isAdmin ? undefined : user.id);
  if (!deleted) return false;
  deps.onRevoke();
  deps.logger.info(
    { event: 'token.revoked', userId: user?.id ?? null, tokenId, ownerId: String(deleted.user_id), ip: by?.ip },
    'token revoked',
  );
  return true;
}

/** Deletes tokens expired for more than `hours`, by their own expires_at or the instance lifetime; returns how many. */
export async function pruneExpiredTokens(deps: AuthDeps, hours: number): Promise<number> {
  const lifetimeMinutes = deps.config.tokens.expirationMinutes;
  const deleted = await deleteExpiredTokens(deps.db, { hours, lifetimeMinutes });
  if (deleted > 0) deps.onRevoke();
  return deleted;
}

/** The abilities asked for (by default the caller's), none beyond the caller's own: `*` only from `*`. */
function grantedAbilities(input: CreateTokenInput): string[] {
  const abilities = [...new Set(input.abilities ?? input.caller.abilities)];
  if (
    !input.caller.abilities.includes('*') &&
    abilities.some((a) => a === '*' || !input.caller.abilities.includes(a))
  ) {
    throw new Forbidden(); // a token may not grant more than the one that asks for it
  }
  return abilities;
}

/** Inserts a created token under its owner's lock, within MAX_TOKENS_PER_USER; its parent is the caller's token. */
async function insertCreatedToken(
  deps: AuthDeps,
  input: CreateTokenInput,
  token: { abilities: string[]; expiresAt: Date | null; tokenHash: string },
) {
  const callerTokenId = input.caller.tokenId;
  const limit = deps.config.tokens.maxPerUser;
  return deps.db.transaction().execute(async (trx) => {
    // Count and insert under the user's lock: concurrent creations cannot pass the cap together.
    if (!(await lockUserForTokens(trx, input.owner.id))) throw new Unauthenticated();
    let parentId: string | null = null;
    if (callerTokenId !== undefined) {
      const kind = await findTokenKind(trx, callerTokenId);
      if (kind === undefined) throw new Unauthenticated(); // the caller's token was revoked while it asked
      parentId = kind === 'login' ? null : callerTokenId;
    }
    if ((await countTokens(trx, input.owner.id, 'created')) >= limit) throw tokenLimitReached(limit);
    return insertToken(trx, { userId: input.owner.id, name: input.name, ...token, kind: 'created', parentId });
  });
}

/**
 * A token for `owner`, Sanctum's createToken: abilities at most the caller's own (`*` only from `*`),
 * by default the same; never outliving the caller's token. Made with a created token, it records that
 * token as its parent and dies with it; made with a login token or by the CLI (no caller token), it is a
 * root. At most MAX_TOKENS_PER_USER created tokens per user (a ValidationFailed on `tokens`). The secret is returned once.
 */
export async function createToken(
  deps: AuthDeps,
  input: CreateTokenInput,
): Promise<{ token: string; summary: TokenSummary }> {
  const abilities = grantedAbilities(input);
  const expiries = [input.expiresAt, input.caller.expiresAt].filter((d): d is Date => d instanceof Date);
  const expiresAt = expiries.length ? new Date(Math.min(...expiries.map((d) => d.getTime()))) : null;
  const secret = generateSecret(deps.config.tokens.prefix);
  const row = await insertCreatedToken(deps, input, { abilities, expiresAt, tokenHash: hashSecret(secret) });
  deps.logger.info(
    {
      event: 'token.created',
      userId: input.owner.id,
      tokenId: String(row.id),
      byTokenId: input.caller.tokenId,
      parentId: row.parent_id === null ? null : String(row.parent_id),
      abilities,
      ip: input.ip,
    },
    'token created',
  );
  return {
    token: formatBearerToken(String(row.id), secret),
    summary: {
      id: String(row.id),
      name: row.name,
      abilities: row.abilities,
      createdAt: row.created_at,
      lastUsedAt: null,
      expiresAt: tokenExpiry(row, deps.config.tokens.expirationMinutes),
      current: false,
    },
  };
}
