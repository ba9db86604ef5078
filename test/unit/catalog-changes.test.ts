import { describe, expect, it } from 'vitest';
import { catalogChangedTags } from '../../src/modules/index.ts';

// Migration 0019's payload read back: what a notification drops. Anything not in its exact form
// (the older trigger's '', a TRUNCATE's '*', a payload cut or forged) drops everything.

describe('the catalogue change notification', () => {
  it('names the products and the list keys that moved', () => {
    expect(catalogChangedTags('u:12')).toEqual(['products:u', 'product:12']);
    expect(catalogChangedTags('mns:1,2')).toEqual(['products:m', 'products:n', 'products:s', 'product:1', 'product:2']);
    expect(catalogChangedTags(':7')).toEqual(['product:7']);
  });

  it('means everything when it is not exactly that form', () => {
    for (const payload of ['', '*', 'u', 'x:1', 'u:', 'u:1,', 'u:1,,2', 'u:a', 'u:1;2', 'u:-1', ' u:1'])
      expect(catalogChangedTags(payload), JSON.stringify(payload)).toBe('all');
  });
});
