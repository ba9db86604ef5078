import { describe, expect, it } from 'vitest';
import { parseLsn, replicaName } from '../../src/platform/replicas.ts';

describe('read replicas', () => {
  it('reads an LSN as its byte position, so positions compare across the 4 GiB boundary', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('0/3000060')).toBe(0x3000060n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(() => parseLsn('nonsense')).toThrow(/not an LSN/);
  });

  it('names a replica by host, port and database, never its credentials', () => {
    expect(replicaName('postgres://svc:s3cret@standby-1.internal:6432/pcs?sslmode=require')).toBe(
      'standby-1.internal:6432/pcs',
    );
    expect(replicaName('postgresql://svc@10.0.0.7/pcs')).toBe('10.0.0.7:5432/pcs');
  });
});
