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
