import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASED_SCHEMA_FILE } from '../../src/graphql/sdl.ts';

const released = () => fs.readFileSync(RELEASED_SCHEMA_FILE, 'utf8');

// `npm run schema:check` as CI runs it, a child process each time: its exit status is what fails the
// build. (What it reports is tested in-process in test/unit/schema-check.test.ts.)
describe('npm run schema:check', () => {
  const run = promisify(execFile);
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-check-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function schemaCheck(...args: string[]): Promise<{ code: number; output: string }> {
    try {
      const { stdout, stderr } = await run('npm', ['run', '--silent', 'schema:check', '--', ...args]);
      return { code: 0, output: stdout + stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, output: e.stdout + e.stderr };
    }
  }

  it('exits 0 on the current schema', { timeout: 120_000 }, async () => {
    const { code, output } = await schemaCheck();
    expect(output).toContain('No breaking change against release/schema.graphql');
    expect(code).toBe(0);
  });

  it(
    'exits 1 and prints the change when the baseline has a field the schema dropped',
    { timeout: 120_000 },
    async () => {
      const baseline = path.join(dir, 'baseline.graphql');
      fs.writeFileSync(baseline, released().replace('type Product {', 'type Product {\n  colour: String!'));
      const { code, output } = await schemaCheck('--baseline', baseline);
      expect(output).toContain("BREAKING   Field 'colour' was removed from object type 'Product'");
      expect(code).toBe(1);
    },
  );
});
