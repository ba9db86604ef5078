import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as configModule from '../../src/config.ts';

// The documentation stays whole: README.md short, every setting documented, every link alive.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = path.join(ROOT, 'README.md');
const DOCS = path.join(ROOT, 'docs');
const README_MAX_BYTES = 12 * 1024;

const markdownFiles = [
  README,
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(DOCS, f)),
];

/** The environment variables src/config.ts reads: what loadConfig looks up, plus the UPPER_SNAKE keys its source names. */
function configVariables(): Set<string> {
  const names = new Set<string>();

  // 1. Ask the code: hand loadConfig an environment that records every name looked up.
  const loadConfig = (configModule as Record<string, unknown>).loadConfig;
  if (typeof loadConfig === 'function') {
    const record = (key: string | symbol) => {
      if (typeof key === 'string' && /^[A-Z][A-Z0-9_]*$/.test(key)) names.add(key);
    };
    const env = new Proxy(
      {},
      {
        get: (target, key) => (record(key), Reflect.get(target, key)),
        has: (target, key) => (record(key), Reflect.has(target, key)),
        getOwnPropertyDescriptor: (target, key) => (record(key), Reflect.getOwnPropertyDescriptor(target, key)),
      },
    );
    try {
      loadConfig(env);
    } catch {
      // Defaults that do not validate alone are not this test's business; the names were recorded.
    }
  }

  // 2. Read the source: keys of the schema object(s) and process.env / env lookups.
  const sources = [path.join(ROOT, 'src/config.ts')];
  const dir = path.join(ROOT, 'src/config');
  if (existsSync(dir) && statSync(dir).isDirectory()) {
    for (const f of readdirSync(dir, { recursive: true }) as string[])
      if (f.endsWith('.ts')) sources.push(path.join(dir, f));
  }
  for (const file of sources.filter((f) => existsSync(f))) {
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    for (const m of text.matchAll(/^\s*(['"]?)([A-Z][A-Z0-9_]*)\1\s*:/gm)) names.add(m[2]!);
    for (const m of text.matchAll(/\b(?:process\.)?env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) {
      names.add((m[1] ?? m[2])!);
    }
  }
  return names;
}

/** Markdown without fenced code blocks and inline code spans, where a link is only text. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lowercased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

function relativeLinks(file: string): string[] {
  const links: string[] = [];
  for (const m of withoutCode(readFileSync(file, 'utf8')).matchAll(
    /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
  )) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    links.push(target);
  }
  return links;
}

/**
 * A citation of a document the repository does not hold: a contract file (by name, or as the bare
 * word in capitals) or the folder beside the checkout it came from. The code and docs stand alone.
 */
const OUTSIDE_CITATION = /\bSPEC\b|SPEC\.md|\.\.\/shared\b|\/work\/shared\b/;

/** `file:line: text` for every line of a tracked text file that cites something outside the tree. */
function outsideCitations(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  const self = path.relative(ROOT, fileURLToPath(import.meta.url));
  const found: string[] = [];
  for (const file of tracked.filter((f) => f && f !== self && !f.endsWith('package-lock.json'))) {
    const full = path.join(ROOT, file);
    if (!existsSync(full)) continue; // deleted in the work tree, not yet in the index
    const text = readFileSync(full, 'utf8');
    if (text.includes('\0')) continue;
    text.split('\n').forEach((line, i) => {
      if (OUTSIDE_CITATION.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

describe('documentation', () => {
  it('README.md stays short', () => {
    expect(statSync(README).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('docs/configuration.md documents every environment variable src/config.ts reads', () => {
    const names = configVariables();
    expect(names.size, 'no variable names found in src/config.ts').toBeGreaterThan(0);
    expect(names).toContain('DATABASE_URL');
    const doc = readFileSync(path.join(DOCS, 'configuration.md'), 'utf8');
    const documented = new Set([...doc.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)].map((m) => m[1]!));
    const missing = [...names].filter((name) => !documented.has(name)).sort();
    expect(missing, 'variables with no table row in docs/configuration.md').toEqual([]);
  });

  it('every relative link in README.md and docs/*.md resolves, anchors included', () => {
    const broken: string[] = [];
    for (const file of markdownFiles) {
      for (const link of relativeLinks(file)) {
        const [target, anchor] = link.split('#', 2) as [string, string | undefined];
        const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
        const where = `${path.relative(ROOT, file)} → ${link}`;
        if (!existsSync(resolved)) {
          broken.push(`${where}: no such file`);
          continue;
        }
        if (
          anchor !== undefined &&
          resolved.endsWith('.md') &&
          !anchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))
        ) {
          broken.push(`${where}: no such heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('README.md links every page in docs/', () => {
    const linked = new Set(relativeLinks(README).map((l) => path.resolve(ROOT, l.split('#')[0]!)));
    const pages = readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(DOCS, f));
    expect(pages.filter((p) => !linked.has(p)).map((p) => path.relative(ROOT, p))).toEqual([]);
  });

  it('no tracked file cites a document outside the repository', () => {
    expect(outsideCitations()).toEqual([]);
  });

  it('the citation check sees each form it looks for, and not a lower-case spec', () => {
    const cites = (line: string) => OUTSIDE_CITATION.test(line);
    for (const line of [
      'SPEC "Finding products"',
      "SPEC's codes",
      'see SPEC.md',
      '../shared/STYLE.md',
      ['', 'work', 'shared'].join('/'),
    ])
      expect(cites(line), line).toBe(true);
    for (const line of ['the GraphQL spec', 'a SPECIAL case', 'shared/errors.ts', 'response-cache.spec.ts'])
      expect(cites(line), line).toBe(false);
  });

  it('the anchor rules match GitHub on the headings used here', () => {
    expect(
      anchors('## Using every core: `WEB_CONCURRENCY`\n## Abuse findings, before and after\n## A\n## A\n'),
    ).toEqual(new Set(['using-every-core-web_concurrency', 'abuse-findings-before-and-after', 'a', 'a-1']));
  });
});
