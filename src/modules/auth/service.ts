import type { Config } from '../../config.ts';
import type { Db } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import { createHashLimiter, HashBusyError } from './hash-limiter.ts';
import { getDummyHash, hashPassword, needsRehash, verifyPassword } from './password.ts';
import {
  clearLoginThrottle,
  deleteToken,
  deleteTokenOwnedBy,
  findTokens,
  findTokenWithUser,
  findUserByEmail,
  hitLoginThrottle,
  insertToken,
  insertUser,
  releaseLoginThrottle,
  touchTokenLastUsed,
  updatePasswordHash,
  type TokenRow,
  type UserRow,
} from './repository.ts';
import { throttleKeys, throttleVerdict } from './throttle.ts';
import { formatBearerToken, generateSecret, hashSecret, parseBearerHeader, secretMatchesHash } from './token.ts';

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  isAdmin: boolean;
  createdAt: Date;
}

/** Who is calling, resolved once per request and shared by REST and GraphQL. */
export interface Session {
  tokenId: string;
  user: SessionUser;
}

export type LoginResult =
  | { ok: true; token: string; user: SessionUser }
  | { ok: false; reason: 'invalid-credentials' }
  /** Too many failures for this email and IP, or for this IP: retry after that many seconds. */
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number }
  /** Logins at capacity (see the hashing limiter); nothing was counted against the caller. */
  | { ok: false; reason: 'busy'; retryAfterSeconds: number };

/** A token as its owner sees it in GET /api/v1/tokens. */
export interface TokenSummary {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** When it stops working: its own expires_at or the instance lifetime, whichever is sooner. */
  expiresAt: Date | null;
  current: boolean;
}

/** A refusal for load carries no information about the account; one second is a fair first retry. */
const BUSY_RETRY_AFTER_SECONDS = 1;

const LAST_USED_RESOLUTION_MS = 60_000;

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

export function createAuthService(deps: { db: Db; config: Config; logger: Logger }) {
  const { db, config, logger } = deps;
  const throttleLimits = { maxAttempts: config.loginMaxAttempts, maxAttemptsPerIp: config.loginMaxAttemptsPerIp };
  const hashLimiter = createHashLimiter({
    concurrency: config.passwordHashConcurrency,
    maxQueue: config.passwordHashQueue,
    maxWaitMs: config.passwordHashQueueTimeoutMs,
  });
  // Made now, so that the first unknown email an instance sees is not the slow one.
  void getDummyHash();

  function effectiveExpiry(row: { created_at: Date; expires_at: Date | null }): Date | null {
    const lifetimeEnd =
      config.tokenExpirationMinutes === undefined
        ? null
        : new Date(row.created_at.getTime() + config.tokenExpirationMinutes * 60_000);
    if (!row.expires_at) return lifetimeEnd;
    if (!lifetimeEnd) return row.expires_at;
    return row.expires_at < lifetimeEnd ? row.expires_at : lifetimeEnd;
  }

  /** Runs inside a limiter slot: its hashing calls argon2 directly. */
  async function attemptLogin(input: { email: string; password: string; ip: string }): Promise<LoginResult> {
    const email = normaliseEmail(input.email);
    const { ip } = input;
    const keys = throttleKeys(email, ip);
    const hits = await hitLoginThrottle(db, [keys.account, keys.ip], config.loginDecaySeconds);
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

  async function issueToken(userId: string, name: string): Promise<string> {
    const secret = generateSecret(config.tokenPrefix);
    const row = await insertToken(db, { userId, name, tokenHash: hashSecret(secret), expiresAt: null });
    return formatBearerToken(String(row.id), secret);
  }

  return {
    issueToken,

    /**
     * One login attempt, run whole inside the hashing limiter: the database work
     * of a login (a contended throttle row, a token insert) is bounded with its
     * argon2 work, so a burst of logins holds at most `passwordHashConcurrency`
     * database connections and never starves other requests of the pool.
     */
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
      logger.info({ event: 'logout', userId: session.user.id, tokenId: session.tokenId, ip }, 'logged out');
    },

    /** The caller's own tokens, oldest first; the hash never leaves the repository. */
    async listTokens(session: Session): Promise<TokenSummary[]> {
      const rows = await findTokens(db, { userId: session.user.id });
      return rows.map((row: TokenRow) => ({
        id: String(row.id),
        name: row.name,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
        expiresAt: effectiveExpiry(row),
        current: String(row.id) === session.tokenId,
      }));
    },

    /**
     * Revokes a token: the caller's own, or anyone's for an administrator. False
     * when there is no such token for this caller (another user's looks absent).
     */
    async revokeToken(session: Session, tokenId: string, ip: string): Promise<boolean> {
      const deleted = await deleteTokenOwnedBy(db, tokenId, session.user.isAdmin ? undefined : session.user.id);
      if (!deleted) return false;
      logger.info(
        { event: 'token.revoked', userId: session.user.id, tokenId, ownerId: String(deleted.user_id), ip },
        'token revoked',
      );
      return true;
    },

    /**
     * Resolves an Authorization header to a session: one statement (token by id
     * joined to its user), a constant-time hash compare, and the expiry rules.
     * Every failure is the same null; the caller answers 401.
     */
    async authenticate(header: string | string[] | undefined): Promise<Session | null> {
      const parsed = parseBearerHeader(header);
      if (!parsed) return null;
      const row = await findTokenWithUser(db, parsed.id);
      if (!row || !secretMatchesHash(parsed.secret, row.token_hash)) return null;
      const now = Date.now();
      if (row.expires_at && row.expires_at.getTime() <= now) return null;
      if (
        config.tokenExpirationMinutes !== undefined &&
        row.token_created_at.getTime() + config.tokenExpirationMinutes * 60_000 <= now
      ) {
        return null;
      }
      if (!row.last_used_at || now - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
        // Awaited (once a minute per token, so rarely) so that a request's writes are
        // done when it answers; a failed touch only costs precision, never the request.
        await touchTokenLastUsed(db, String(row.token_id)).catch((err: Error) =>
          logger.warn({ err: { message: err.message } }, 'could not record token use'),
        );
      }
      return {
        tokenId: String(row.token_id),
        user: {
          id: String(row.user_id),
          name: row.user_name,
          email: row.user_email,
          isAdmin: row.user_is_admin,
          createdAt: row.user_created_at,
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
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

/** The user record of the login response, as the original service shaped it. */
export function presentUser(user: SessionUser) {
  return {
    id: Number(user.id),
    name: user.name,
    email: user.email,
    is_admin: user.isAdmin,
    created_at: user.createdAt.toISOString(),
  };
}
