import { describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { generateSecret, hashSecret, parseBearerHeader, secretMatchesHash } from '../../src/modules/auth/token.ts';

describe('generateSecret', () => {
  it('is 40 random alphanumerics plus their crc32b, after the prefix', () => {
    const secret = generateSecret('pcs_');
    expect(secret).toMatch(/^pcs_[A-Za-z0-9]{40}[0-9a-f]{8}$/);
    const entropy = secret.slice(4, 44);
    expect(secret.slice(44)).toBe(crc32(entropy).toString(16).padStart(8, '0'));
    expect(generateSecret('')).not.toBe(generateSecret(''));
  });
});

describe('parseBearerHeader', () => {
  it('reads <id>|<secret>', () => {
    expect(parseBearerHeader('Bearer 12|abcDEF123')).toEqual({ id: '12', secret: 'abcDEF123' });
    expect(parseBearerHeader('bearer 12|abc')).toEqual({ id: '12', secret: 'abc' });
  });

  it.each([
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    'Bearer 1|',
    'Bearer |abc',
    'Bearer abc|def',
    'Bearer 0|abc',
    'Bearer 99999999999999999999|x',
    'Bearer 9223372036854775808|x',
    'Bearer 1|abc\u0000def',
    'Bearer 1|abc def',
    `Bearer 1|${'a'.repeat(8192)}`,
  ])('refuses %j', (header) => {
    expect(parseBearerHeader(header)).toBeNull();
  });

  it('refuses repeated headers', () => {
    expect(parseBearerHeader(['Bearer 1|abc', 'Bearer 1|abc'])).toBeNull();
  });
});

describe('secretMatchesHash', () => {
  it('matches only the secret that was hashed', () => {
    const hash = hashSecret('s3cret');
    expect(secretMatchesHash('s3cret', hash)).toBe(true);
    expect(secretMatchesHash('s3cre', hash)).toBe(false);
    expect(secretMatchesHash('s3cret', 'not-hex')).toBe(false);
  });
});
