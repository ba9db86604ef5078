import { sql } from 'kysely';
import type { Db } from '../../platform/db.ts';
import { preparedQuery } from '../../platform/prepared.ts';

// All authentication SQL: users and personal access tokens.

export interface UserRow {
  id: string;
  name: string;
  email: string;
  password_hash: string;
  is_admin: boolean;
  created_at: Date;
}

export interface TokenWithUserRow {
  token_id: string;
  token_hash: string;
  token_created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  user_id: string;
  user_name: string;
  user_email: string;
  user_is_admin: boolean;
  user_created_at: Date;
}

export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
}

/** Thrown by insertUser when the email is taken; the unique violation is known here, not upstream. */
export class DuplicateEmailError extends Error {
  constructor() {
    super('A user with this email already exists.');
    this.name = 'DuplicateEmailError';
  }
}

const UNIQUE_VIOLATION = '23505';

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'name', 'email', 'password_hash', 'is_admin', 'created_at'])
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function insertUser(
  db: Db,
  user: { name: string; email: string; passwordHash: string; isAdmin: boolean },
): Promise<UserRow> {
  try {
    return await db
      .insertInto('users')
      .values({ name: user.name, email: user.email, password_hash: user.passwordHash, is_admin: user.isAdmin })
      .returning(['id', 'name', 'email', 'password_hash', 'is_admin', 'created_at'])
      .executeTakeFirstOrThrow();
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw new DuplicateEmailError();
    throw err;
  }
}

export async function updatePasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: sql`now()` })
    .where('id', '=', userId)
    .execute();
}

export async function insertToken(
  db: Db,
  token: { userId: string; name: string; tokenHash: string; expiresAt: Date | null },
): Promise<TokenRow> {
  return db
    .insertInto('personal_access_tokens')
    .values({ user_id: token.userId, name: token.name, token_hash: token.tokenHash, expires_at: token.expiresAt })
    .returning(['id', 'user_id', 'name', 'created_at', 'last_used_at', 'expires_at'])
    .executeTakeFirstOrThrow();
}

const tokenWithUser = preparedQuery<TokenWithUserRow>('auth_token_with_user', (db: Db) =>
  db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select([
      't.id as token_id',
      't.token_hash',
      't.created_at as token_created_at',
      't.expires_at',
      't.last_used_at',
      'u.id as user_id',
      'u.name as user_name',
      'u.email as user_email',
      'u.is_admin as user_is_admin',
      'u.created_at as user_created_at',
    ])
    .where('t.id', '=', '0'),
);

/**
 * The one statement an authenticated request costs: the token row and its user, by
 * token id. A named prepared statement on PostgreSQL, as it runs on every request.
 */
export async function findTokenWithUser(db: Db, tokenId: string): Promise<TokenWithUserRow | undefined> {
  return (await tokenWithUser.execute(db, [tokenId]))[0];
}

/** Records use at most once a minute per token: the WHERE makes concurrent touches a no-op. */
export async function touchTokenLastUsed(db: Db, tokenId: string): Promise<void> {
  await db
    .updateTable('personal_access_tokens')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', tokenId)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]),
    )
    .execute();
}

export async function deleteToken(db: Db, tokenId: string): Promise<boolean> {
  const result = await db.deleteFrom('personal_access_tokens').where('id', '=', tokenId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function findTokens(db: Db, filter: { userId?: string } = {}): Promise<(TokenRow & { email: string })[]> {
  let query = db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.user_id', 't.name', 't.created_at', 't.last_used_at', 't.expires_at', 'u.email'])
    .orderBy('t.id');
  if (filter.userId !== undefined) query = query.where('t.user_id', '=', filter.userId);
  return query.execute();
}

/**
 * Deletes tokens expired for at least `hours` hours, by their own expires_at or by
 * the instance-wide lifetime (created before now - lifetime). Returns how many.
 */
export async function deleteExpiredTokens(
  db: Db,
  { hours, lifetimeMinutes }: { hours: number; lifetimeMinutes: number | undefined },
): Promise<number> {
  const result = await db
    .deleteFrom('personal_access_tokens')
    .where((eb) => {
      const conditions = [eb('expires_at', '<=', sql<Date>`now() - make_interval(hours => ${hours})`)];
      if (lifetimeMinutes !== undefined) {
        conditions.push(
          eb('created_at', '<=', sql<Date>`now() - make_interval(mins => ${lifetimeMinutes + hours * 60})`),
        );
      }
      return eb.or(conditions);
    })
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
