import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { parseRowId } from '../../platform/ids.ts';
import { safeEqual } from '../../platform/secrets.ts';

// Sanctum's layout, `<id>|<secret>`: the secret is the instance prefix, 40 CSPRNG [A-Za-z0-9] and their 8-hex
// crc32b (for secret scanners). Only sha256(secret) is stored, found by id and compared in constant time.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ENTROPY_LENGTH = 40;
/** Longer than any secret we issue (32-char prefix + 48); anything beyond is refused unread. */
const MAX_SECRET_LENGTH = 128;

export function generateSecret(prefix: string): string {
  let entropy = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < ENTROPY_LENGTH; i++) entropy += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}${entropy}${crc32(entropy).toString(16).padStart(8, '0')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function formatBearerToken(id: string, secret: string): string {
  return `${id}|${secret}`;
}

export interface ParsedToken {
  id: string;
  secret: string;
}

/** Anything but `Bearer <id>|<secret>` of sane size and id range is null: every such case is the same 401. */
export function parseBearerHeader(header: string | string[] | undefined): ParsedToken | null {
  if (typeof header !== 'string' || header.length > 512) return null;
  const match = /^Bearer +([0-9]+)\|([A-Za-z0-9_-]+)$/i.exec(header.trim());
  if (!match) return null;
  const id = parseRowId(match[1]!);
  const secret = match[2]!;
  if (id === null || secret.length > MAX_SECRET_LENGTH) return null;
  return { id, secret };
}

export function secretMatchesHash(secret: string, storedHash: string): boolean {
  return safeEqual(hashSecret(secret), storedHash.trim().toLowerCase());
}

// How long a token lives: authentication checks it on every request, the service shows it in listings.

/** When a token stops working: its own expires_at or the instance lifetime, whichever is sooner; null: never. */
export function tokenExpiry(
  token: { created_at: Date; expires_at: Date | null },
  lifetimeMinutes: number | undefined,
): Date | null {
  const lifetimeEnd =
    lifetimeMinutes === undefined ? null : new Date(token.created_at.getTime() + lifetimeMinutes * 60_000);
  if (!token.expires_at) return lifetimeEnd;
  if (!lifetimeEnd) return token.expires_at;
  return token.expires_at < lifetimeEnd ? token.expires_at : lifetimeEnd;
}

/** When each token stops working, its ancestors' ends included (all of a user's tokens given, parents among them). */
export function chainExpiries(
  tokens: readonly { id: string; parent_id: string | null; created_at: Date; expires_at: Date | null }[],
  lifetimeMinutes: number | undefined,
): Map<string, Date | null> {
  const byId = new Map(tokens.map((t) => [String(t.id), t]));
  const ends = new Map<string, Date | null>();
  const endOf = (id: string): Date | null => {
    if (ends.has(id)) return ends.get(id)!;
    const token = byId.get(id)!;
    const own = tokenExpiry(token, lifetimeMinutes);
    // parent_id < id: ids ascending visit parents first, so this recursion is at most one level deep in practice.
    const parent =
      token.parent_id !== null && byId.has(String(token.parent_id)) ? endOf(String(token.parent_id)) : null;
    const end = !parent ? own : !own || parent < own ? parent : own;
    ends.set(id, end);
    return end;
  };
  for (const id of [...byId.keys()].sort((a, b) => Number(a) - Number(b))) endOf(id);
  return ends;
}
