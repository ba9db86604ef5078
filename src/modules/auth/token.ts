import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Sanctum's personal access token layout: the bearer token is `<id>|<secret>`,
 * where id is the personal_access_tokens row and the secret is an optional
 * instance prefix, 40 characters of [A-Za-z0-9] from a CSPRNG, and the 8-hex
 * crc32b of those 40 (so secret scanners can tell a real token from noise).
 * Only sha256(secret) is stored; the row is found by id and the hash compared in
 * constant time.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ENTROPY_LENGTH = 40;
const MAX_TOKEN_ID = 9223372036854775807n;
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

/**
 * Reads `Authorization: Bearer <id>|<secret>`. Anything else (no header, two
 * headers, another scheme, a malformed or oversized token, an id out of bigint
 * range) is null: the caller answers every such case with the same 401.
 */
export function parseBearerHeader(header: string | string[] | undefined): ParsedToken | null {
  if (typeof header !== 'string' || header.length > 512) return null;
  const match = /^Bearer +([1-9][0-9]{0,18})\|([A-Za-z0-9_-]+)$/i.exec(header.trim());
  if (!match) return null;
  const id = match[1]!;
  const secret = match[2]!;
  if (BigInt(id) > MAX_TOKEN_ID || secret.length > MAX_SECRET_LENGTH) return null;
  return { id, secret };
}

/** Constant-time comparison of a presented secret with the stored sha256 hex. */
export function secretMatchesHash(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash.trim(), 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}
