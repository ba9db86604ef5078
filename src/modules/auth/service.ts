import type { Config } from '../../config.ts';
import type { Db } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import { getDummyHash, hashPassword, needsRehash, verifyPassword } from './password.ts';
import {
  deleteToken,
  findTokenWithUser,
  findUserByEmail,
  insertToken,
  insertUser,
  touchTokenLastUsed,
  updatePasswordHash,
  type UserRow,
} from './repository.ts';
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
  | { ok: false; reason: 'invalid-credentials' };

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

  async function issueToken(userId: string, name: string): Promise<string> {
    const secret = generateSecret(config.tokenPrefix);
    const row = await insertToken(db, { userId, name, tokenHash: hashSecret(secret), expiresAt: null });
    return formatBearerToken(String(row.id), secret);
  }

  return {
    issueToken,

    async login(input: { email: string; password: string; ip: string }): Promise<LoginResult> {
      const email = normaliseEmail(input.email);
      const user = await findUserByEmail(db, email);
      // Unknown emails verify against a dummy hash: same work, same time, same answer.
      const valid = await verifyPassword(user?.password_hash ?? (await getDummyHash()), input.password);
      if (!user || !valid) {
        logger.info({ event: 'login.failed', userId: user ? String(user.id) : null, ip: input.ip }, 'login failed');
        return { ok: false, reason: 'invalid-credentials' };
      }
      if (needsRehash(user.password_hash)) {
        await updatePasswordHash(db, String(user.id), await hashPassword(input.password));
      }
      const token = await issueToken(String(user.id), 'login');
      logger.info({ event: 'login.ok', userId: String(user.id), ip: input.ip }, 'login succeeded');
      return { ok: true, token, user: toSessionUser(user) };
    },

    async logout(session: Session, ip: string): Promise<void> {
      await deleteToken(db, session.tokenId);
      logger.info({ event: 'logout', userId: session.user.id, tokenId: session.tokenId, ip }, 'logged out');
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
        // Off the request's critical path; a lost touch only costs precision.
        touchTokenLastUsed(db, String(row.token_id)).catch((err: Error) =>
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
        passwordHash: await hashPassword(input.password),
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
