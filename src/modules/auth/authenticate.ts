import type { Logger } from '../../platform/logger.ts';
import type { Ability, Authenticate } from '../../platform/session.ts';
import { findTokenWithUser, touchTokenLastUsed, type TokenWithUserRow } from './repository.ts';
import type { AuthDb } from './tables.ts';
import type { TokenCache } from './token-cache.ts';
import { parseBearerHeader, secretMatchesHash, tokenExpiry } from './token.ts';

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * A request's scopes: the token's abilities with `*` expanded to every declared one, unknown names
 * dropped, and admin-only abilities dropped for users who are not administrators.
 */
export function scopesOf(abilities: readonly string[], isAdmin: boolean, declared: readonly Ability[]): string[] {
  const all = abilities.includes('*');
  return declared.filter((a) => (all || abilities.includes(a.name)) && (isAdmin || !a.adminOnly)).map((a) => a.name);
}

/**
 * One statement (token by id, with its user), or none when the token cache holds it, and a
 * constant-time compare of the secret either way; every failure is the same null (401).
 */
export function createAuthenticator(deps: {
  db: AuthDb;
  lifetimeMinutes: number | undefined;
  logger: Logger;
  abilities: readonly Ability[];
  cache?: TokenCache | undefined;
}): Authenticate {
  const { db, lifetimeMinutes, logger, abilities, cache } = deps;

  async function find(tokenId: string): Promise<{ row: TokenWithUserRow; keep?: number } | undefined> {
    const cached = cache?.get(tokenId);
    if (cached) return { row: cached };
    const mark = cache?.mark();
    const row = await findTokenWithUser(db, tokenId);
    return row && { row, keep: mark };
  }

  return async (header) => {
    const parsed = parseBearerHeader(header);
    if (!parsed) return null;
    const found = await find(parsed.id);
    if (!found || !secretMatchesHash(parsed.secret, found.row.token_hash)) return null;
    const { row } = found;
    const now = Date.now();
    // The chain's soonest end: a token never outlives the token it was created from.
    const expiry = tokenExpiry({ created_at: row.lifetime_from, expires_at: row.expires_at }, lifetimeMinutes);
    if (expiry && expiry.getTime() <= now) return null;
    // Only verified, unexpired tokens are kept: a guessed id cannot fill the cache.
    if (found.keep !== undefined) cache!.set(parsed.id, row, found.keep);
    if (!row.last_used_at || now - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
      row.last_used_at = new Date(now);
      // Awaited so a request's writes are done when it answers; a failed touch only costs precision.
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
      abilities: row.abilities,
      scopes: scopesOf(row.abilities, row.user_is_admin, abilities),
      expiresAt: expiry,
    };
  };
}
