import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE } from '../../db/seeds/catalog.ts';

// Issue 30 item 8: every admin command took seconds before doing anything, `help` included, because the CLIs
// loaded the service's modules (graphql, Yoga, @apollo/subgraph) and the database drivers at start. What a
// CLI's entry file loads before it knows its command is what `help` and a usage error cost: keep it small.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEAVY_PACKAGES = ['graphql', 'graphql-yoga', '@apollo/subgraph', 'kysely', 'pg', '@electric-sql/pglite', 'pino'];

/** Files and packages reached through static, non-type-only imports (dynamic import() loads later). */
function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)) {
      const specifier = m[1]!;
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier);
        if (existsSync(target)) visit(target);
      } else if (!specifier.startsWith('node:')) {
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
      }
    }
  };
  visit(path.join(ROOT, entry));
  return { files, packages };
}

describe('what a CLI loads before it knows its command', () => {
  for (const entry of ['scripts/admin.ts', 'scripts/seed.ts', 'scripts/migrate.ts']) {
    it(`${entry}: no module of the service, no GraphQL, no database driver`, () => {
      const { files, packages } = staticClosure(entry);
      const relative = [...files].map((f) => path.relative(ROOT, f));
      if (entry !== 'scripts/migrate.ts') {
        expect(relative.filter((f) => f.startsWith('src/modules/') || f.startsWith('db/'))).toEqual([]);
        expect([...packages].filter((p) => HEAVY_PACKAGES.includes(p))).toEqual([]);
      } else {
        // db:migrate always opens the database; it needs no service module.
        expect(relative.filter((f) => f.startsWith('src/modules/'))).toEqual([]);
        expect([...packages].filter((p) => ['graphql', 'graphql-yoga', '@apollo/subgraph'].includes(p))).toEqual([]);
      }
    });
  }

  it("db:seed's usage states the generator's shape", () => {
    const { steps, components, customisations } = DEFAULT_SHAPE;
    expect(readFileSync(path.join(ROOT, 'scripts/seed.ts'), 'utf8')).toContain(
      `${steps} steps x ${components} components x ${customisations} customisations`,
    );
  });
});
