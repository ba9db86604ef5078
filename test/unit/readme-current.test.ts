import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What README.md shows of the repository stays true of it.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(`${ROOT}/README.md`, 'utf8');

describe('README.md', () => {
  it('shows db:migrate applying every migration there is, and how many', () => {
    const names = readdirSync(`${ROOT}/db/migrations`).filter((f) => /\.(ts|js)$/.test(f)).map((f) => f.replace(/\.(ts|js)$/, ''));
    const sample = readme.slice(readme.indexOf('### Migrations'));
    for (const name of names) expect(sample).toContain(`#   applied ${name}\n`);
    expect(sample).toContain(`# Applied ${names.length} migrations.`);
  });

  it('says what npm test installs before it runs', () => {
    expect(readme).toMatch(/What `npm test` installs before it runs/);
    expect(readme).toMatch(/apt-get install -y chromium/);
    expect(readme).toMatch(/~500 MB/);
  });

  it('the export file the README suggests is ignored by git', () => {
    expect(readme).toContain('catalog:export --out catalog.json');
    // git check-ignore exits 0 when the path is ignored, 1 when it is not.
    for (const file of ['catalog.json', '.catalog.json.123.tmp']) {
      expect(() => execFileSync('git', ['check-ignore', '-q', file], { cwd: ROOT }), file).not.toThrow();
    }
  });
});
