// Bundles the GraphiQL page (src/graphiql-app/: graphiql 5, React, the sign-in plugin) and Monaco's
// three language workers with esbuild into dist/graphiql/. The server hashes and compresses these
// files once at start (src/graphql/graphiql.ts). Rebuilt only when a source or the lockfile is newer.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = path.join(root, 'src/graphiql-app');

/** Names the server reads; the workers are keyed by the label Monaco asks for. */
export const GRAPHIQL_FILES = {
  page: ['page.js', 'page.css'],
  workers: {
    editorWorkerService: 'monaco-editor/esm/vs/editor/editor.worker.js',
    json: 'monaco-editor/esm/vs/language/json/json.worker.js',
    graphql: 'monaco-graphql/esm/graphql.worker.js',
  },
};

function newestInput() {
  const files = fs.readdirSync(source, { recursive: true }).map((f) => path.join(source, String(f)));
  files.push(path.join(root, 'package-lock.json'), fileURLToPath(import.meta.url));
  return Math.max(...files.map((f) => fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0));
}

export async function buildGraphiQL(outdir = path.join(root, 'dist/graphiql'), { force = false } = {}) {
  const stamp = path.join(outdir, 'built');
  if (!force && fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs >= newestInput()) return outdir;
  const esbuild = await import('esbuild');
  const common = {
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022'],
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  };
  fs.rmSync(outdir, { recursive: true, force: true });
  await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: { page: path.join(source, 'main.tsx') },
      outdir,
      jsx: 'automatic',
      loader: { '.ttf': 'dataurl' },
    }),
    ...Object.entries(GRAPHIQL_FILES.workers).map(([label, entry]) =>
      esbuild.build({ ...common, entryPoints: [entry], outfile: path.join(outdir, `${label}.worker.js`) }),
    ),
  ]);
  fs.copyFileSync(path.join(source, 'favicon.svg'), path.join(outdir, 'favicon.svg'));
  fs.writeFileSync(stamp, new Date().toISOString());
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await buildGraphiQL(undefined, { force: process.argv.includes('--force') });
  console.log(`GraphiQL bundle ready in ${Date.now() - started} ms`);
}
