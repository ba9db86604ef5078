import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The service's Node arguments exactly as `npm start` runs it (package.json's
 * "start" is `node <args>`), so that the bench, the soak and the tests that
 * start the real process run it with the same runtime flags operators get.
 */
export function serviceNodeArgs(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [bin, ...args] = pkg.scripts.start.trim().split(/\s+/);
  if (bin !== 'node' || args.at(-1) !== 'src/main.ts') {
    throw new Error(`package.json "start" must be "node <flags> src/main.ts", found: ${pkg.scripts.start}`);
  }
  return args;
}
