import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * The integration core: what CI runs on the other Node lines, one file per thing clients rely on most
 * (the HTTP edge, login and logout, catalogue reads, writes, configure and saved configurations, the
 * response cache, federation). docs/testing.md says why each is here.
 */
const INTEGRATION_CORE = [
  'test/integration/http.test.ts',
  'test/integration/login-logout.test.ts',
  'test/integration/catalog.test.ts',
  'test/integration/catalog-writes.test.ts',
  'test/integration/configuration.test.ts',
  'test/integration/response-cache.test.ts',
  'test/integration/federation.test.ts',
];
// A renamed file would silently leave the core: say so at once instead.
for (const file of INTEGRATION_CORE) {
  if (!existsSync(new URL(file, import.meta.url)))
    throw new Error(`vitest.config.ts: INTEGRATION_CORE lists ${file}, which is gone`);
}

/** Over HTTP on a migrated database: the global set-up builds dist/ and migrates one template per run. */
const INTEGRATION = {
  globalSetup: ['test/support/global-setup.ts'],
  hookTimeout: 120_000,
};

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) side by side. Node, and so
    // every dependency vitest leaves to Node (@apollo/subgraph, Yoga), loads the
    // CJS build; without this alias vite would hand our own files the ESM one, and
    // a schema built by one copy fails instanceof checks in the other.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    testTimeout: 30_000,
    // Real argon2 (19 MiB per hash) and one database per file: two workers fit two cores.
    maxWorkers: 2,
    // Each project lists its own set-up: `--project unit` builds nothing and needs no database.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Pure modules, no shared state between files: one module graph per worker, so graphql, Yoga
          // and the schema load once per worker instead of once per file.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'integration-core', include: INTEGRATION_CORE, ...INTEGRATION } },
      {
        extends: true,
        test: {
          name: 'integration-rest',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION_CORE],
          ...INTEGRATION,
        },
      },
    ],
  },
});
