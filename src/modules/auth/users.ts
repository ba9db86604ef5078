import type { SessionUser } from '../../platform/session.ts';
import type { HashLimiter } from './hash-limiter.ts';
import { hashPassword } from './password.ts';
import { findUserByEmail, insertUser, updatePasswordHash, type UserRow } from './repository.ts';
import type { AuthDb } from './tables.ts';

// Users: created and given passwords by the command line, found by email (trimmed, any case).

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const toSessionUser = (u: Pick<UserRow, 'id' | 'name' | 'email' | 'is_admin' | 'created_at'>): SessionUser => ({
  id: String(u.id),
  name: u.name,
  email: u.email,
  isAdmin: u.is_admin,
  createdAt: u.created_at,
});

export async function createUser(
  db: AuthDb,
  hashLimiter: HashLimiter,
  input: { name: string; email: string; password: string; isAdmin: boolean },
): Promise<SessionUser> {
  const user = await insertUser(db, {
    name: input.name,
    email: normaliseEmail(input.email),
    passwordHash: await hashLimiter.run(() => hashPassword(input.password)),
    isAdmin: input.isAdmin,
  });
  return toSessionUser(user);
}

/** The user with that email (trimmed, any case), if any. */
export async function findUser(db: AuthDb, email: string): Promise<SessionUser | undefined> {
  const user = await findUserByEmail(db, normaliseEmail(email));
  return user && toSessionUser(user);
}

export async function setPassword(db: AuthDb, hashLimiter: HashLimiter, userId: string, password: string) {
  await updatePasswordHash(db, userId, await hashLimiter.run(() => hashPassword(password)));
}
