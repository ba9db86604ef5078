import type { Session, SessionUser } from '../../platform/session.ts';
import { HashBusyError, type HashLimiter } from './hash-limiter.ts';
import { getDummyHash, hashPassword, needsRehash, verifyPassword } from './password.ts';
import { deleteToken, findUserByEmail, updatePasswordHash } from './repository.ts';
import { clearLoginThrottle, hitLoginThrottle, releaseLoginThrottle } from './throttle-repository.ts';
import { throttleKeys, throttleVerdict } from './throttle.ts';
import { issueToken, type AuthDeps } from './tokens.ts';
import { normaliseEmail, toSessionUser } from './users.ts';

// Login (email and password for a token, throttled and at most so many hashes at once) and logout.

export type LoginResult =
  | { ok: true; token: string; user: SessionUser }
  | { ok: false; reason: 'invalid-credentials' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number }
  /** Logins at capacity (see the hashing limiter); nothing was counted against the caller. */
  | { ok: false; reason: 'busy'; retryAfterSeconds: number };

export interface LoginInput {
  email: string;
  password: string;
  ip: string;
}

/** A refusal for load carries no information about the account; one second is a fair first retry. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** Runs inside a limiter slot: its hashing calls argon2 directly. */
async function attemptLogin(deps: AuthDeps, input: LoginInput): Promise<LoginResult> {
  const { db, config, logger } = deps;
  const email = normaliseEmail(input.email);
  const { ip } = input;
  const keys = throttleKeys(email, ip);
  const hits = await hitLoginThrottle(db, [keys.account, keys.ip], config.throttle.decaySeconds);
  // From here the attempt is counted; every path but a wrong password gives the count back.
  let counted = false;
  try {
    const user = await findUserByEmail(db, email);
    const userId = user ? String(user.id) : null;
    const retryAfter = throttleVerdict(hits, keys, config.throttle);
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
    const token = await issueToken(deps, String(user.id), 'login');
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

/** Whole inside the hashing limiter: a burst of logins holds at most `passwordHash.concurrency` connections. */
export async function login(deps: AuthDeps, hashLimiter: HashLimiter, input: LoginInput): Promise<LoginResult> {
  try {
    return await hashLimiter.run(() => attemptLogin(deps, input));
  } catch (err) {
    if (!(err instanceof HashBusyError)) throw err;
    deps.logger.warn({ event: 'login.busy', ip: input.ip }, 'login refused: password hashing at capacity');
    return { ok: false, reason: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
  }
}

export async function logout(deps: AuthDeps, session: Session, ip: string): Promise<void> {
  await deleteToken(deps.db, session.tokenId);
  deps.onRevoke();
  deps.logger.info({ event: 'logout', userId: session.user.id, tokenId: session.tokenId, ip }, 'logged out');
}
