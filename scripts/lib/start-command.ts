import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = 'dist/src/main.js';

/**
 * The service's Node arguments exactly as `npm start` runs it (package.json's "start" is
 * `node <flags> dist/src/main.js`), so the bench, the soak and the tests that start the real
 * process run what operators run. Call ensureBuilt() first.
 */
export function serviceNodeArgs(root = ROOT): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [bin, ...args] = pkg.scripts.start.trim().split(/\s+/);
  if (bin !== 'node' || args.at(-1) !== ENTRY) {
    throw new Error(`package.json "start" must be "node <flags> ${ENTRY}", found: ${pkg.scripts.start}`);
  }
  return args;
}

/** Brings dist/ up to date, as `npm start` does before it starts; `root`: another checkout (a before/after run). */
export function ensureBuilt(root = ROOT): void {
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
}
