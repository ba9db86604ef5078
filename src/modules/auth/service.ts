import type { Config } from '../../config.ts';
import type { AuthDb } from './tables.ts';
import type { Session, SessionUser } from '../../platform/session.ts';
import type { Logger } from '../../platform/logger.ts';
import { createHashLimiter, HashBusyError } from './hash-limiter.ts';
import { getDummyHash, hashPassword, needsRehash, verifyPassword } from './password.ts';
import {
  clearLoginThrottle,
  countTokens,
  deleteOldestLoginTokens,
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
  type TokenRow,
  type UserRow,
} from './repository.ts';
import { throttleKeys, throttleVerdict } from './throttle.ts';
import { chainExpiries, tokenExpiry } from './authenticate.ts';
import { formatBearerToken, generateSecret, hashSecret } from './token.ts';

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

/** A token may not grant more than the one that asks for it. */
export class AbilityEscalationError extends Error {
  constructor() {
    super('This action is unauthorized.');
  }
}

/** The user holds MAX_TOKENS_PER_USER created tokens already. */
export class TokenLimitError extends Error {
  constructor(readonly limit: number) {
    super(`A user may hold at most ${limit} created tokens (login tokens aside). Revoke one first.`);
  }
}

/** The token asking was revoked while it asked. */
export class CallerTokenGoneError extends Error {
  constructor() {
    super('The token making the request is no longer valid.');
  }
}

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
  // Made now, so that the first unknown email an instance sees is not the slow one.
  void getDummyHash();

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
      const inserted = await insertToken(trx, { userId, name, tokenHash: hashSecret(secret), expiresAt: null, kind: 'login' });
      return { row: inserted, evicted: await deleteOldestLoginTokens(trx, userId, config.tokens.maxLoginPerUser) };
    });
    if (evicted > 0) {
      onRevoke();
      logger.info({ event: 'token.login-evicted', userId, count: evicted, limit: config.tokens.maxLoginPerUser }, 'oldest login tokens revoked');
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

    async listTokens(session: Session): Promise<TokenSummary[]> {
      const rows = await findTokens(db, { userId: session.user.id });
      const ends = chainExpiries(rows, config.tokens.expirationMinutes);
      return rows.map((row: TokenRow) => ({
        id: String(row.id),
        name: row.name,
        abilities: row.abilities,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
        expiresAt: ends.get(String(row.id)) ?? null,
        current: String(row.id) === session.tokenId,
      }));
    },

    /**
     * Administrators may revoke anyone's token; to others, another user's token looks absent (false).
     * Tokens created from it go with it (ON DELETE CASCADE), as on logout.
     */
    async revokeToken(session: Session, tokenId: string, ip: string): Promise<boolean> {
      const deleted = await deleteTokenOwnedBy(db, tokenId, session.user.isAdmin ? undefined : session.user.id);
      if (!deleted) return false;
      onRevoke();
      logger.info(
        { event: 'token.revoked', userId: session.user.id, tokenId, ownerId: String(deleted.user_id), ip },
        'token revoked',
      );
      return true;
    },

    /**
     * A token for `owner`, Sanctum's createToken: abilities at most the caller's own (`*` only from `*`),
     * by default the same; never outliving the caller's token. Made with a created token, it records that
     * token as its parent and dies with it; made with a login token or by the CLI (no caller token), it is a
     * root. At most MAX_TOKENS_PER_USER created tokens per user (TokenLimitError). The secret is returned once.
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
      if (!input.caller.abilities.includes('*') && abilities.some((a) => a === '*' || !input.caller.abilities.includes(a))) {
        throw new AbilityEscalationError();
      }
      const expiries = [input.expiresAt, input.caller.expiresAt].filter((d): d is Date => d instanceof Date);
      const expiresAt = expiries.length ? new Date(Math.min(...expiries.map((d) => d.getTime()))) : null;
      const secret = generateSecret(config.tokens.prefix);
      const callerTokenId = input.caller.tokenId;
      const limit = config.tokens.maxPerUser;
      const row = await db.transaction().execute(async (trx) => {
        // Count and insert under the user's lock: concurrent creations cannot pass the cap together.
        if (!(await lockUserForTokens(trx, input.owner.id))) throw new CallerTokenGoneError();
        let parentId: string | null = null;
        if (callerTokenId !== undefined) {
          const kind = await findTokenKind(trx, callerTokenId);
          if (kind === undefined) throw new CallerTokenGoneError();
          parentId = kind === 'login' ? null : callerTokenId;
        }
        if ((await countTokens(trx, input.owner.id, 'created')) >= limit) throw new TokenLimitError(limit);
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
