import fs from 'node:fs';

/**
 * Summarises a V8 .cpuprofile (node --cpu-prof, or npm run bench -- --profile):
 * self time by function and by package, to show where the time of a request goes.
 * Usage: tsx scripts/bench/profile-summary.ts <file.cpuprofile> [top=25]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx scripts/bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
// Shares are of the time the thread was busy: an idle server says nothing about where work goes.
const total = [...selfUs].reduce((a, [id, us]) => a + (idleIds.has(id) ? 0 : us), 0);

function where(url: string): string {
  if (!url) return '(native/V8)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return url;
  const own = /\/(src|scripts|db)\/.*/.exec(url);
  return own ? own[0].slice(1) : url;
}

const fnSelf = new Map<string, number>();
const pkgSelf = new Map<string, number>();
for (const [id, us] of selfUs) {
  if (idleIds.has(id)) continue;
  const node = byId.get(id)!;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'}  ${where(url)}${url ? `:${lineNumber + 1}` : ''}`;
  fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
  const pkg = ['(idle)', '(program)', '(garbage collector)'].includes(functionName) ? functionName : where(url);
  pkgSelf.set(pkg, (pkgSelf.get(pkg) ?? 0) + us);
}

const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`${(total / 1000).toFixed(0)} ms busy (idle excluded)\n\nself time by package or file:`);
for (const [k, us] of [...pkgSelf].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
console.log('\nself time by function:');
for (const [k, us] of [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
