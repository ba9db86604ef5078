// Compiles the service into dist/ (what `npm start` runs) and copies the SDL and the OpenAPI document beside it. `tsc -b`
// rebuilds only what changed, so `npm start` runs this first and a fresh clone builds once. The
// GraphiQL page is bundled with esbuild into dist/graphiql/ (scripts/build-graphiql.mjs), likewise only when stale.
// --clean starts from nothing, dropping the output of deleted sources. Plain JavaScript: it must
// run before anything is compiled.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without dev dependencies (npm ci --omit=dev) runs the dist/ it was shipped with.
  if (fs.existsSync(path.join(dist, 'src/main.js'))) process.exit(0);
  console.error('dist/ is missing and TypeScript is not installed: run `npm install`, then `npm run build`.');
  process.exit(1);
}

if (process.argv.includes('--clean')) fs.rmSync(dist, { recursive: true, force: true });
const { status } = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (status !== 0) process.exit(status ?? 1);
// Migrations are found by listing their folder: a compiled one whose source is gone (another branch checked
// out) would be applied by the next start.
const migrations = path.join(dist, 'db/migrations');
for (const file of fs.existsSync(migrations) ? fs.readdirSync(migrations) : []) {
  if (!fs.existsSync(path.join(root, 'db/migrations', file.replace(/\.js$/, '.ts'))))
    fs.rmSync(path.join(migrations, file));
}
await (await import('./build-graphiql.mjs')).buildGraphiQL(path.join(dist, 'graphiql'));
fs.rmSync(path.join(dist, 'schema'), { recursive: true, force: true });
fs.cpSync(path.join(root, 'schema'), path.join(dist, 'schema'), { recursive: true });
// The OpenAPI document is served from beside the code, as the SDL is.
fs.mkdirSync(path.join(dist, 'docs'), { recursive: true });
fs.copyFileSync(path.join(root, 'docs/openapi.json'), path.join(dist, 'docs/openapi.json'));
