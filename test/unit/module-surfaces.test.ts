import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// A module's index.ts is its public surface: the server and the other modules take what it exports.
// The tools around the service (scripts/, the seeds, the tests' shared support) may also take a
// module's tools.ts (bulk inserts, export and import, cursors), which the server never imports. Nothing
// else is imported from inside a module, so its files can move or change shape behind these two.

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

/** A module's top-level file of this name (src/modules/<name>/<file>). */
const isSurface = (target: string, file: string) =>
  path.relative(MODULES, target).split(path.sep).length === 2 && path.basename(target) === file;

/**
 * `file: specifier` for each import that reaches into a module other than `own` past its surfaces
 * (index.ts, and tools.ts where `surfaces` lists it).
 */
function reachesIn(
  files: readonly string[],
  own: (file: string) => string | undefined = () => undefined,
  surfaces: readonly string[] = ['index.ts'],
): string[] {
  return files.flatMap((file) =>
    relativeImports(file)
      .filter((target) => {
        const name = moduleOf(target);
        return name !== undefined && name !== own(file) && !surfaces.some((s) => isSurface(target, s));
      })
      .map((target) => `${path.relative(ROOT, file)}: ${path.relative(ROOT, target)}`),
  );
}

/** `file: specifier` for each import of a module's tools.ts. */
const toolImports = (files: readonly string[]) =>
  files.flatMap((file) =>
    relativeImports(file)
      .filter((target) => isSurface(target, 'tools.ts'))
      .map((target) => `${path.relative(ROOT, file)}: ${path.relative(ROOT, target)}`),
  );

describe("a module's index.ts is its one public surface", () => {
  it('sees an import that reaches in (unit tests may: they test a module from inside)', () => {
    expect(reachesIn([path.join(ROOT, 'test/unit/pagination.test.ts')])).toContain(
      'test/unit/pagination.test.ts: src/modules/catalog/pagination.ts',
    );
  });

  it('scripts/, db/seeds/ and test/support/ import from a module only its index.ts and tools.ts', () => {
    const files = ['scripts', 'db/seeds', 'test/support'].flatMap(filesUnder);
    expect(files.length).toBeGreaterThan(50);
    expect(reachesIn(files, undefined, ['index.ts', 'tools.ts'])).toEqual([]);
  });

  it('a module reaches another module only through its index.ts', () => {
    expect(reachesIn(filesUnder('src/modules'), moduleOf)).toEqual([]);
  });

  it('sees an import of a tools.ts', () => {
    expect(toolImports([path.join(ROOT, 'db/seeds/catalog.ts')])).toEqual([
      'db/seeds/catalog.ts: src/modules/catalog/tools.ts',
    ]);
  });

  it("the server imports no module's tools.ts: what it takes is in index.ts", () => {
    expect(toolImports(filesUnder('src'))).toEqual([]);
  });

  it("the catalogue's index.ts leaves the tools' exports to tools.ts", async () => {
    const [face, tools] = await Promise.all([
      import('../../src/modules/catalog/index.ts'),
      import('../../src/modules/catalog/tools.ts'),
    ]);
    const shared = Object.keys(tools).filter((name) => name in face);
    expect(shared).toEqual([]);
    expect(Object.keys(face).length).toBeLessThanOrEqual(10);
  });
});
