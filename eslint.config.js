// ESLint for the whole code base: typescript-eslint with type information (one TypeScript program per
// tsconfig.json, found by the project service), import cycles through the TypeScript resolver, and
// eslint-config-prettier last so that no rule argues with the formatter.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Where values are untyped by design (the reason is given with each use): the rules about using them, off. */
const UNTYPED_VALUES = {
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

export default defineConfig(
  {
    ignores: [
      'dist/',
      'coverage/',
      '**/node_modules/',
      'src/modules/*/generated/',
      'test-results/',
      'bench-profiles/',
      '.data/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
      parserOptions: {
        projectService: {
          // Plain JavaScript is outside every tsconfig.json (no allowJs); these few files get a default program.
          allowDefaultProject: ['*.js', 'scripts/*.mjs', 'scripts/bench/postgraphile/*.mjs', 'test/gateway/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      // Imports name the .ts file (allowImportingTsExtensions); the TypeScript resolver follows them, and
      // no-cycle reads only files with these extensions, parsed by typescript-eslint.
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts'] },
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'all',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // Factories return object literals of closures, never `this`-bound classes: passing one of their
      // members around (metrics.observeQuery, cache.clear) is how this code base is written.
      '@typescript-eslint/unbound-method': 'off',
      // `async` without `await` is used on purpose: it implements a Promise-returning interface and turns a
      // synchronous throw into a rejection. Floating and misused promises are what the rules above catch.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Envelop types the execution arguments graphql-agnostically (schema, document and variables are `any`
    // in @envelop/types), so in the Yoga plugins every use of them would be "unsafe"; tsc types the rest.
    files: ['src/graphql/**/*.ts'],
    rules: UNTYPED_VALUES,
  },
  {
    // Tests read HTTP and GraphQL answers as untyped JSON and check them with expect(); typing each answer
    // would repeat the schema without catching more than the assertions do.
    files: ['test/**/*.{ts,mjs}'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', ...UNTYPED_VALUES },
  },
  {
    // The bench's PostGraphile peer installs its packages on first use (scripts/bench/servers.ts), so on a
    // fresh checkout their types cannot be resolved: the rules that need them would fail for that alone.
    files: ['scripts/bench/postgraphile/*.mjs'],
    rules: UNTYPED_VALUES,
  },
  {
    // Migrations are frozen in time: raw SQL on Kysely<any>, never the app's table types. platform/ and
    // http/ import no module, so the database handle they open, migrate and probe is Kysely<any> too.
    files: ['db/migrations/**/*.ts', 'src/platform/**/*.ts', 'src/http/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/graphiql-app/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // A file or a function that outgrows these is split along the lines it already has, so each part can be
    // read on a screen and tested on its own. The generated resolver types are ignored above.
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  prettier,
);
