import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const CONFIGURATION_ID_LENGTH = 12;
const PATTERN = /^[A-Za-z0-9]{12}$/;
// The largest multiple of 62 below 256: bytes at or above it are dropped, so every character is equally likely.
const UNBIASED = 248;

/** 12 characters of [A-Za-z0-9] from the CSPRNG: about 71 bits, not guessable, short enough for a link. */
export function newConfigurationId(): string {
  let id = '';
  while (id.length < CONFIGURATION_ID_LENGTH) {
    for (const byte of randomBytes(16)) {
      if (byte < UNBIASED && id.length < CONFIGURATION_ID_LENGTH) id += ALPHABET[byte % 62];
    }
  }
  return id;
}

/** Whether some configuration could have this id; anything else is answered without a query. */
export const isConfigurationId = (text: string) => PATTERN.test(text);
