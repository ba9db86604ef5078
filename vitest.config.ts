import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) side by side. Node, and so
    // every dependency vitest leaves to Node (@apollo/subgraph, Yoga), loads the
    // CJS build; without this alias vite would hand our own files the ESM one, and
    // a schema built by one copy fails instanceof checks in the other.
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
