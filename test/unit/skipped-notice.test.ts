import { describe, expect, it } from 'vitest';
import { skippedNotice } from '../support/skipped.ts';

// What the end of an integration run says it skipped (test/support/global-setup.ts prints it).
describe('skippedNotice', () => {
  it('names the files with PostgreSQL-only tests, and how to run them, on the embedded database', () => {
    const notice = skippedNotice({});
    expect(notice).toMatch(/^Skipped on this machine: tests that need PostgreSQL in .*busy-event-loop.*cluster/);
    expect(notice).toContain('set DATABASE_URL to run them');
    expect(notice?.split('\n')).toHaveLength(1);
  });

  it('says nothing of PostgreSQL when DATABASE_URL is set', () => {
    expect(skippedNotice({ DATABASE_URL: 'postgres://x/y' }) ?? '').not.toContain('PostgreSQL');
  });
});
