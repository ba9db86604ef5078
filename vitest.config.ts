import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Real argon2 (19 MiB per hash) and one database per file: two workers fit two cores.
    maxWorkers: 2,
  },
});
