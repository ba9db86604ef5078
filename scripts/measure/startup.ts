// Start-up to /ready and RSS of the service, run as compiled JavaScript (what `npm start` runs) and
// through tsx (what it ran before `npm run build` existed), on an already migrated database.
//   npx tsx scripts/measure/startup.ts [--runs 5]      DATABASE_URL set: PostgreSQL; unset: embedded
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../lib/service-process.ts';
import { residentBytes } from '../lib/proc.ts';
import { ensureBuilt, serviceNodeArgs } from '../lib/start-command.ts';
import { percentile } from '../lib/stats.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const rssMiB = (pid: number) => (residentBytes(pid) ?? NaN) / 2 ** 20;
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

ensureBuilt();
const flags = serviceNodeArgs().slice(0, -1);
const entries = {
  'compiled (dist/)': [...flags, 'dist/src/main.js'],
  'tsx (src/)': [...flags, '--import', 'tsx', 'src/main.ts'],
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-startup-'));
const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production' };

interface Sample {
  readyMs: number;
  rssMiB: number;
  rssAfterMiB: number;
}

async function startOnce(args: string[]): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (performance.now() - started > 60_000) throw new Error('not ready after 60 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    const readyMs = performance.now() - started;
    const rss = rssMiB(child.pid!);
    // A little traffic, so the figure includes what the first requests load (Yoga's parse, the schema).
    for (let i = 0; i < 20; i++) {
      await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{__typename}"}',
      }).then((r) => r.arrayBuffer());
    }
    return { readyMs, rssMiB: rss, rssAfterMiB: rssMiB(child.pid!) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

try {
  // The first start migrates (and seeds the embedded demo); it is not measured.
  await startOnce(entries['compiled (dist/)']);
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs, ${env.DATABASE_URL ? 'PostgreSQL' : 'embedded database'}, ${runs} runs each, medians\n`,
  );
  console.log('| runtime | start → /ready ms | RSS at ready MiB | RSS after 20 requests MiB |');
  console.log('|---|---:|---:|---:|');
  for (const [name, args] of Object.entries(entries)) {
    const samples: Sample[] = [];
    for (let i = 0; i < runs; i++) samples.push(await startOnce(args));
    const m = (pick: (s: Sample) => number) => median(samples.map(pick)).toFixed(0);
    console.log(`| ${name} | ${m((s) => s.readyMs)} | ${m((s) => s.rssMiB)} | ${m((s) => s.rssAfterMiB)} |`);
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
