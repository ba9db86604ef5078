import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Whether two secrets are equal, in time that says nothing about where they differ or how long either is:
 * both are hashed first, so timingSafeEqual always compares 32 bytes.
 */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
