import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// No file reaches itself through static imports. Type-only imports count: they vanish at run time, so they
// cannot break module initialisation, but a cycle of types still ties two files together (neither can be
// read, moved or split into a subgraph without the other), and today's type cycle is tomorrow's value cycle.
// Dynamic import() does not count: it loads lazily, which is how a cycle is broken on purpose.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ROOTS = ['src', 'scripts'];
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Relative specifiers of top-level `import … from` and `export … from`, resolved to files that exist. */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const targets: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined;
    if (!specifier?.startsWith('.')) continue;
    const resolved = path.resolve(path.dirname(file), specifier);
    const candidates = [resolved, resolved.replace(/\.js$/, '.ts'), resolved.replace(/\.mjs$/, '.mts')];
    const found = candidates.find((c) => SOURCE.test(c) && existsSync(c));
    if (found) targets.push(found);
  }
  return targets;
}

/** Every file reachable from src/ and scripts/ (following imports anywhere in the repository), with its edges. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = ROOTS.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    const targets = importsOf(file);
    graph.set(file, targets);
    pending.push(...targets.filter((t) => !graph.has(t)));
  }
  return graph;
}

/** Strongly connected components of more than one file, or of one file importing itself (Tarjan). */
function cyclicComponents(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) components.push(component);
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components;
}

/** One concrete loop through a component, from its first file (by name) back to it: what to cut. */
function loopThrough(component: string[], graph: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const loop = [start];
        for (let at = file; at !== start; at = previous.get(at)!) loop.splice(1, 0, at);
        return [...loop, start];
      }
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

describe('imports', () => {
  it('form no cycle in src/ and scripts/', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    const loops = cyclicComponents(graph).map((component) =>
      loopThrough(component, graph)
        .map((file) => path.relative(ROOT, file))
        .join(' → '),
    );
    expect(loops, `import cycles:\n${loops.join('\n')}`).toEqual([]);
  });
});
