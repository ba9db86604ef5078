import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// A module's index.ts is its one public surface: REST, GraphQL and the command line take what it exports.
// The tools around the service (scripts/, the seeds, the tests' shared support) and the other modules
// import nothing else from inside it, so a module's files can move or change shape behind its index.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODULES = path.join(ROOT, 'src/modules');
const SOURCE = /\.(ts|mts|js|mjs)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && SOURCE.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every module specifier of a file: static imports, re-exports, import() and require(), resolved to absolute paths. */
function relativeImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('.'))
    .map((s) => path.resolve(path.dirname(file), s));
}

/** The module a path lies inside (src/modules/<name>/...), or undefined. */
function moduleOf(target: string): string | undefined {
  const rel = path.relative(MODULES, target);
  const parts = rel.split(path.sep);
  return rel.startsWith('..') || parts.length < 2 ? undefined : parts[0];
}

const isIndex = (target: string) =>
  path.relative(MODULES, target).split(path.sep).length === 2 && path.basename(target) === 'index.ts';

/** `file: specifier` for each import that reaches into a module other than `own` past its index.ts. */
function reachesIn(files: readonly string[], own: (file: string) => string | undefined = () => undefined): string[] {
  return files.flatMap((file) =>
    relativeImports(file)
      .filter((target) => {
        const name = moduleOf(target);
        return name !== undefined && name !== own(file) && !isIndex(target);
      })
      .map((target) => `${path.relative(ROOT, file)}: ${path.relative(ROOT, target)}`),
  );
}

describe("a module's index.ts is its one public surface", () => {
  it('sees an import that reaches in (unit tests may: they test a module from inside)', () => {
    expect(reachesIn([path.join(ROOT, 'test/unit/pagination.test.ts')])).toContain(
      'test/unit/pagination.test.ts: src/modules/catalog/pagination.ts',
    );
  });

  it('scripts/, db/seeds/ and test/support/ import from a module only its index.ts', () => {
    const files = ['scripts', 'db/seeds', 'test/support'].flatMap(filesUnder);
    expect(files.length).toBeGreaterThan(50);
    expect(reachesIn(files)).toEqual([]);
  });

  it('a module reaches another module only through its index.ts', () => {
    expect(reachesIn(filesUnder('src/modules'), moduleOf)).toEqual([]);
  });
});
