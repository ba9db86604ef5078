import { sql } from 'kysely';
import type { AuthDb, TokenKind } from './tables.ts';
import { preparedQuery } from '../../platform/prepared.ts';

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
  abilities: string[];
  token_created_at: Date;
  /** The soonest own expires_at along the token and its ancestors. */
  expires_at: Date | null;
  /** The oldest created_at along the token and its ancestors: where the instance lifetime counts from. */
  lifetime_from: Date;
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
  abilities: string[];
  parent_id: string | null;
  kind: TokenKind;
}

/** Thrown by insertUser when the email is taken; the unique violation is known here, not upstream. */
export class DuplicateEmailError extends Error {
  constructor() {
    super('A user with this email already exists.');
    this.name = 'DuplicateEmailError';
  }
}

const UNIQUE_VIOLATION = '23505';

export async function findUserByEmail(db: AuthDb, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'name', 'email', 'password_hash', 'is_admin', 'created_at'])
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function insertUser(
  db: AuthDb,
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

export async function updatePasswordHash(db: AuthDb, userId: string, passwordHash: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: sql`now()` })
    .where('id', '=', userId)
    .execute();
}

const TOKEN_COLUMNS = [
  'id',
  'user_id',
  'name',
  'created_at',
  'last_used_at',
  'expires_at',
  'abilities',
  'parent_id',
  'kind',
] as const;

export async function insertToken(
  db: AuthDb,
  token: {
    userId: string;
    name: string;
    tokenHash: string;
    expiresAt: Date | null;
    abilities?: readonly string[];
    /** Default `created`. */
    kind?: TokenKind;
    parentId?: string | null;
  },
): Promise<TokenRow> {
  return db
    .insertInto('personal_access_tokens')
    .values({
      user_id: token.userId,
      name: token.name,
      token_hash: token.tokenHash,
      expires_at: token.expiresAt,
      kind: token.kind ?? 'created',
      parent_id: token.parentId ?? null,
      ...(token.abilities ? { abilities: sql<string[]>`${JSON.stringify(token.abilities)}::jsonb` } : {}),
    })
    .returning(TOKEN_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Serialises the token-count checks of one user (the row lock is released at commit); NO KEY UPDATE does not
 * block the inserts of other transactions (their foreign-key check takes KEY SHARE). False: no such user.
 */
export async function lockUserForTokens(trx: AuthDb, userId: string): Promise<boolean> {
  const row = await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().executeTakeFirst();
  return row !== undefined;
}

export async function countTokens(db: AuthDb, userId: string, kind: TokenKind): Promise<number> {
  const row = await db
    .selectFrom('personal_access_tokens')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** KEY SHARE: a revocation of this token waits for the caller's transaction, then takes its new child along. */
export async function findTokenKind(db: AuthDb, tokenId: string): Promise<TokenKind | undefined> {
  const row = await db
    .selectFrom('personal_access_tokens')
    .select('kind')
    .where('id', '=', tokenId)
    .forKeyShare()
    .executeTakeFirst();
  return row?.kind;
}

/** Deletes the user's login tokens but the newest `keep`; returns how many went. */
export async function deleteOldestLoginTokens(db: AuthDb, userId: string, keep: number): Promise<number> {
  const result = await db
    .deleteFrom('personal_access_tokens')
    .where('user_id', '=', userId)
    .where('kind', '=', 'login')
    .where('id', 'not in', (eb) =>
      eb
        .selectFrom('personal_access_tokens')
        .select('id')
        .where('user_id', '=', userId)
        .where('kind', '=', 'login')
        .orderBy('id', 'desc')
        .limit(keep),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * A token is only as good as the tokens it was created from: `expires_at` is the soonest of its own and its
 * ancestors' (parent_id < id bounds the walk), `lifetime_from` the oldest creation time, where the instance
 * lifetime (TOKEN_EXPIRATION_MINUTES) of the chain ends first. A revoked ancestor took the token with it (cascade).
 */
const tokenWithUser = preparedQuery<TokenWithUserRow>('auth_token_with_user_chain', (db: AuthDb) =>
  sql<TokenWithUserRow>`SELECT t.id AS token_id, t.token_hash, t.abilities, t.created_at AS token_created_at,
      chain.expires_at, chain.lifetime_from,
      t.last_used_at, u.id AS user_id, u.name AS user_name, u.email AS user_email,
      u.is_admin AS user_is_admin, u.created_at AS user_created_at
    FROM personal_access_tokens t
    JOIN users u ON u.id = t.user_id
    CROSS JOIN (
      WITH RECURSIVE up (id, parent_id, created_at, expires_at) AS (
        SELECT id, parent_id, created_at, expires_at FROM personal_access_tokens WHERE id = ${'0'}
        UNION ALL
        SELECT p.id, p.parent_id, p.created_at, p.expires_at FROM personal_access_tokens p JOIN up ON p.id = up.parent_id
      )
      SELECT min(expires_at) AS expires_at, min(created_at) AS lifetime_from FROM up
    ) chain
    WHERE t.id = ${'0'}`.compile(db),
);

/** The one statement every authenticated request costs (the token cache aside), hence prepared. */
export async function findTokenWithUser(db: AuthDb, tokenId: string): Promise<TokenWithUserRow | undefined> {
  return (await tokenWithUser.execute(db, [tokenId, tokenId]))[0];
}

/** Records use at most once a minute per token: the WHERE makes concurrent touches a no-op. */
export async function touchTokenLastUsed(db: AuthDb, tokenId: string): Promise<void> {
  await db
    .updateTable('personal_access_tokens')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', tokenId)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]),
    )
    .execute();
}

export async function deleteToken(db: AuthDb, tokenId: string): Promise<boolean> {
  const result = await db.deleteFrom('personal_access_tokens').where('id', '=', tokenId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** With ownerId, another user's token matches nothing; returns the deleted token's owner. */
export async function deleteTokenOwnedBy(
  db: AuthDb,
  tokenId: string,
  ownerId: string | undefined,
): Promise<{ user_id: string } | undefined> {
  let query = db.deleteFrom('personal_access_tokens').where('id', '=', tokenId);
  if (ownerId !== undefined) query = query.where('user_id', '=', ownerId);
  return query.returning(['user_id']).executeTakeFirst();
}

export async function findTokens(
  db: AuthDb,
  filter: { userId?: string } = {},
): Promise<(TokenRow & { email: string })[]> {
  let query = db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select([
      't.id',
      't.user_id',
      't.name',
      't.created_at',
      't.last_used_at',
      't.expires_at',
      't.abilities',
      't.parent_id',
      't.kind',
      'u.email',
    ])
    .orderBy('t.id');
  if (filter.userId !== undefined) query = query.where('t.user_id', '=', filter.userId);
  return query.execute();
}

/** Tokens expired for at least `hours`, by their own expires_at or by the instance-wide lifetime. */
export async function deleteExpiredTokens(
  db: AuthDb,
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

export async function countUsers(db: AuthDb): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A token's name, for `me` (authentication does not load it: no request but `me` needs it). */
export async function findTokenName(db: AuthDb, tokenId: string): Promise<string | undefined> {
  const row = await db.selectFrom('personal_access_tokens').select('name').where('id', '=', tokenId).executeTakeFirst();
  return row?.name;
}
