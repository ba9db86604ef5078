import { hash, verify, type Algorithm } from '@node-rs/argon2';

// Algorithm is an ambient const enum, which isolated modules cannot read; 2 is its Argon2id.
const ARGON2ID = 2 as Algorithm;

/** OWASP's argon2id minimum or above; hashes with other parameters are upgraded on the next login (needsRehash). */
export const PASSWORD_HASH_PARAMS = {
  algorithm: ARGON2ID,
  memoryCost: 19_456, // KiB
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PASSWORD_HASH_PARAMS);
}

export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    // A corrupt stored hash is a failed login, never a 500.
    return false;
  }
}

export function needsRehash(phc: string): boolean {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(phc);
  if (!match) return true;
  return (
    Number(match[1]) !== PASSWORD_HASH_PARAMS.memoryCost ||
    Number(match[2]) !== PASSWORD_HASH_PARAMS.timeCost ||
    Number(match[3]) !== PASSWORD_HASH_PARAMS.parallelism
  );
}

let dummyHash: Promise<string> | undefined;

/** Verified against for unknown emails, so they cost the same time as wrong passwords. */
export function getDummyHash(): Promise<string> {
  dummyHash ??= hashPassword(`dummy-${Math.random()}-${Date.now()}`);
  return dummyHash;
}
