import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What the documentation (README.md and docs/) shows of the repository stays true of it.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const commandLine = readFileSync(`${ROOT}/docs/command-line.md`, 'utf8');
const testing = readFileSync(`${ROOT}/docs/testing.md`, 'utf8');

describe('README.md and docs/', () => {
  it('docs/command-line.md shows db:migrate applying every migration there is, and how many', () => {
    const names = readdirSync(`${ROOT}/db/migrations`)
      .filter((f) => /\.(ts|js)$/.test(f))
      .map((f) => f.replace(/\.(ts|js)$/, ''));
    const start = commandLine.indexOf('## Migrations');
    expect(start).toBeGreaterThanOrEqual(0);
    const sample = commandLine.slice(start);
    for (const name of names) expect(sample).toContain(`#   applied ${name}\n`);
    expect(sample).toContain(`# Applied ${names.length} migrations.`);
  });

  it('docs/testing.md says what npm test installs before it runs', () => {
    expect(testing).toMatch(/What `npm test` installs before it runs/);
    expect(testing).toMatch(/apt-get install -y chromium/);
    expect(testing).toMatch(/~500 MB/);
  });

  it('docs/testing.md names the integration core vitest.config.ts runs, and npm scripts that exist', () => {
    const config = readFileSync(`${ROOT}/vitest.config.ts`, 'utf8');
    const list = /const INTEGRATION_CORE = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
    const core = [...list.matchAll(/'test\/integration\/([^']+)'/g)].map((m) => m[1]).sort();
    expect(core.length).toBeGreaterThan(0);
    const section = testing.slice(testing.indexOf('## The integration core'), testing.indexOf('## How integration'));
    const documented = [...section.matchAll(/^\| `([^`]+\.test\.ts)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(core);

    const scripts = Object.keys(JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).scripts as object);
    const named = [...testing.matchAll(/npm run ([a-z:-]+)/g)].map((m) => m[1]!);
    expect(named).toContain('test:unit');
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it('the export file docs/command-line.md suggests is ignored by git', () => {
    expect(commandLine).toContain('catalog:export --out catalog.json');
    // git check-ignore exits 0 when the path is ignored, 1 when it is not.
    for (const file of ['catalog.json', '.catalog.json.123.tmp']) {
      expect(() => execFileSync('git', ['check-ignore', '-q', file], { cwd: ROOT }), file).not.toThrow();
    }
  });
});
