import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (index.js) and ESM (index.mjs); Node and every
    // dependency load the CJS one, Vite would pick the ESM one for src/ files, and
    // graphql refuses schema objects from "another realm". One copy for all.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Real argon2 (19 MiB per hash) and one database per file: two workers fit two cores.
    maxWorkers: 2,
  },
});
