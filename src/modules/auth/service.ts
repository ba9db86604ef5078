import type { Config } from '../../config.ts';
import type { AuthDb } from './tables.ts';
import type { Session, SessionUser } from '../../platform/session.ts';
import type { Logger } from '../../platform/logger.ts';
import { Forbidden, Unauthenticated, ValidationFailed } from '../../platform/errors.ts';
import { createHashLimiter, HashBusyError } from './hash-limiter.ts';
import { getDummyHash, hashPassword, needsRehash, verifyPassword } from './password.ts';
import {
  clearLoginThrottle,
  countTokens,
  deleteOldestLoginTokens,
  deleteExpiredTokens,
  deleteToken,
  deleteTokenOwnedBy,
  findTokenKind,
  findTokens,
  lockUserForTokens,
  findUserByEmail,
  hitLoginThrottle,
  insertToken,
  insertUser,
  releaseLoginThrottle,
  updatePasswordHash,
  type UserRow,
} from './repository.ts';
import { throttleKeys, throttleVerdict } from './throttle.ts';
import { chainExpiries, formatBearerToken, generateSecret, hashSecret, tokenExpiry } from './token.ts';

export type LoginResult =
  | { ok: true; token: string; user: SessionUser }
  | { ok: false; reason: 'invalid-credentials' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number }
  /** Logins at capacity (see the hashing limiter); nothing was counted against the caller. */
  | { ok: false; reason: 'busy'; retryAfterSeconds: number };

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

/** The user holds MAX_TOKENS_PER_USER created tokens already: a 422 on `tokens`. */
const tokenLimitReached = (limit: number) =>
  new ValidationFailed({
    tokens: [`A user may hold at most ${limit} created tokens (login tokens aside). Revoke one first.`],
  });

/** A refusal for load carries no information about the account; one second is a fair first retry. */
const BUSY_RETRY_AFTER_SECONDS = 1;

const toSessionUser = (u: Pick<UserRow, 'id' | 'name' | 'email' | 'is_admin' | 'created_at'>): SessionUser => ({
  id: String(u.id),
  name: u.name,
  email: u.email,
  isAdmin: u.is_admin,
  createdAt: u.created_at,
});

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function createAuthService(deps: {
  db: AuthDb;
  config: Config['auth'];
  logger: Logger;
  /** Called once a token of this process's is deleted, before the caller is answered. */
  onRevoke?: () => void;
}) {
  const { db, config, logger, onRevoke = () => {} } = deps;
  const throttleLimits = config.throttle;
  const hashLimiter = createHashLimiter(config.passwordHash);

  /** Runs inside a limiter slot: its hashing calls argon2 directly. */
  async function attemptLogin(input: { email: string; password: string; ip: string }): Promise<LoginResult> {
    const email = normaliseEmail(input.email);
    const { ip } = input;
    const keys = throttleKeys(email, ip);
    const hits = await hitLoginThrottle(db, [keys.account, keys.ip], config.throttle.decaySeconds);
    // From here the attempt is counted; every path but a wrong password gives the count back.
    let counted = false;
    try {
      const user = await findUserByEmail(db, email);
      const userId = user ? String(user.id) : null;
      const retryAfter = throttleVerdict(hits, keys, throttleLimits);
      if (retryAfter !== null) {
        logger.warn({ event: 'login.throttled', userId, ip, retryAfter }, 'login throttled');
        return { ok: false, reason: 'throttled', retryAfterSeconds: retryAfter };
      }
      // Unknown emails verify against a dummy hash: same work, same time, same answer.
      const valid = await verifyPassword(user?.password_hash ?? (await getDummyHash()), input.password);
      if (!user || !valid) {
        counted = true;
        logger.info({ event: 'login.failed', userId, ip }, 'login failed');
        return { ok: false, reason: 'invalid-credentials' };
      }
      await clearLoginThrottle(db, keys.account);
      if (needsRehash(user.password_hash)) {
        await updatePasswordHash(db, String(user.id), await hashPassword(input.password));
        logger.info({ event: 'password.rehashed', userId }, 'password hash upgraded');
      }
      const token = await issueToken(String(user.id), 'login');
      logger.info({ event: 'login.ok', userId, ip }, 'login succeeded');
      return { ok: true, token, user: toSessionUser(user) };
    } finally {
      // After a success the account bucket is gone already; releasing it matches nothing.
      if (!counted) {
        await releaseLoginThrottle(db, [keys.account, keys.ip]).catch((err: Error) =>
          logger.warn({ err: { message: err.message } }, 'could not release a login throttle count'),
        );
      }
    }
  }

  /** A login token (a root, every ability); the user's oldest beyond MAX_LOGIN_TOKENS_PER_USER are revoked. */
  async function issueToken(userId: string, name: string): Promise<string> {
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
      onRevoke();
      logger.info(
        { event: 'token.login-evicted', userId, count: evicted, limit: config.tokens.maxLoginPerUser },
        'oldest login tokens revoked',
      );
    }
    return formatBearerToken(String(row.id), secret);
  }

  return {
    issueToken,

    hashing: () => hashLimiter.stats,

    /** Whole inside the hashing limiter: a burst of logins holds at most `passwordHash.concurrency` connections. */
    async login(input: { email: string; password: string; ip: string }): Promise<LoginResult> {
      try {
        return await hashLimiter.run(() => attemptLogin(input));
      } catch (err) {
        if (!(err instanceof HashBusyError)) throw err;
        logger.warn({ event: 'login.busy', ip: input.ip }, 'login refused: password hashing at capacity');
        return { ok: false, reason: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
      }
    },

    async logout(session: Session, ip: string): Promise<void> {
      await deleteToken(db, session.tokenId);
      onRevoke();
      logger.info({ event: 'logout', userId: session.user.id, tokenId: session.tokenId, ip }, 'logged out');
    },

    /**
     * Tokens (never their hashes) in id order, of one user or of all; `expiresAt` is when each stops working,
     * its ancestors' ends and the instance lifetime counted. `current` marks the caller's own.
     */
    async listTokens(filter: { userId?: string; currentTokenId?: string } = {}): Promise<TokenListing[]> {
      const rows = await findTokens(db, { userId: filter.userId });
      // A token's parent is its owner's: the listing of one user (or all) holds every ancestor.
      const ends = chainExpiries(rows, config.tokens.expirationMinutes);
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
    },

    /**
     * Deletes a token and the tokens created from it (ON DELETE CASCADE), as on logout; false when there is
     * none. By a session, administrators may revoke anyone's token, and to others another user's token looks
     * absent. Without one (the operator's shell), any token.
     */
    async revokeToken(tokenId: string, by?: { session: Session; ip: string }): Promise<boolean> {
      const user = by?.session.user;
      const deleted = await deleteTokenOwnedBy(db, tokenId, user === undefined || user.isAdmin ? undefined : user.id);
      if (!deleted) return false;
      onRevoke();
      logger.info(
        { event: 'token.revoked', userId: user?.id ?? null, tokenId, ownerId: String(deleted.user_id), ip: by?.ip },
        'token revoked',
      );
      return true;
    },

    /** Deletes tokens expired for more than `hours`, by their own expires_at or the instance lifetime; returns how many. */
    async pruneExpiredTokens(hours: number): Promise<number> {
      const deleted = await deleteExpiredTokens(db, { hours, lifetimeMinutes: config.tokens.expirationMinutes });
      if (deleted > 0) onRevoke();
      return deleted;
    },

    /**
     * A token for `owner`, Sanctum's createToken: abilities at most the caller's own (`*` only from `*`),
     * by default the same; never outliving the caller's token. Made with a created token, it records that
     * token as its parent and dies with it; made with a login token or by the CLI (no caller token), it is a
     * root. At most MAX_TOKENS_PER_USER created tokens per user (a ValidationFailed on `tokens`). The secret is returned once.
     */
    async createToken(input: {
      owner: { id: string };
      caller: { abilities: readonly string[]; expiresAt: Date | null; tokenId?: string };
      name: string;
      abilities?: readonly string[] | undefined;
      expiresAt?: Date | undefined;
      ip?: string;
    }): Promise<{ token: string; summary: TokenSummary }> {
      const abilities = [...new Set(input.abilities ?? input.caller.abilities)];
      if (
        !input.caller.abilities.includes('*') &&
        abilities.some((a) => a === '*' || !input.caller.abilities.includes(a))
      ) {
        throw new Forbidden(); // a token may not grant more than the one that asks for it
      }
      const expiries = [input.expiresAt, input.caller.expiresAt].filter((d): d is Date => d instanceof Date);
      const expiresAt = expiries.length ? new Date(Math.min(...expiries.map((d) => d.getTime()))) : null;
      const secret = generateSecret(config.tokens.prefix);
      const callerTokenId = input.caller.tokenId;
      const limit = config.tokens.maxPerUser;
      const row = await db.transaction().execute(async (trx) => {
        // Count and insert under the user's lock: concurrent creations cannot pass the cap together.
        if (!(await lockUserForTokens(trx, input.owner.id))) throw new Unauthenticated();
        let parentId: string | null = null;
        if (callerTokenId !== undefined) {
          const kind = await findTokenKind(trx, callerTokenId);
          if (kind === undefined) throw new Unauthenticated(); // the caller's token was revoked while it asked
          parentId = kind === 'login' ? null : callerTokenId;
        }
        if ((await countTokens(trx, input.owner.id, 'created')) >= limit) throw tokenLimitReached(limit);
        return insertToken(trx, {
          userId: input.owner.id,
          name: input.name,
          tokenHash: hashSecret(secret),
          expiresAt,
          abilities,
          kind: 'created',
          parentId,
        });
      });
      logger.info(
        {
          event: 'token.created',
          userId: input.owner.id,
          tokenId: String(row.id),
          byTokenId: callerTokenId,
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
          expiresAt: tokenExpiry(row, config.tokens.expirationMinutes),
          current: false,
        },
      };
    },

    async createUser(input: { name: string; email: string; password: string; isAdmin: boolean }): Promise<SessionUser> {
      const user = await insertUser(db, {
        name: input.name,
        email: normaliseEmail(input.email),
        passwordHash: await hashLimiter.run(() => hashPassword(input.password)),
        isAdmin: input.isAdmin,
      });
      return toSessionUser(user);
    },

    /** The user with that email (trimmed, any case), if any. */
    async findUser(email: string): Promise<SessionUser | undefined> {
      const user = await findUserByEmail(db, normaliseEmail(email));
      return user && toSessionUser(user);
    },

    async setPassword(userId: string, password: string): Promise<void> {
      await updatePasswordHash(db, userId, await hashLimiter.run(() => hashPassword(password)));
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
