import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

/** What Linux's /proc says about a process: CPU time (the bench) and resident memory (the soak, the abuse run). */

let clockTicks: number | undefined;
/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux); asked once, when first needed. */
const ticksPerSecond = () =>
  (clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);

/** utime + stime of a process in ticks, or null when it is gone. */
export function cpuTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** cutime + cstime of this process: CPU of its children that have exited and been reaped. */
export function reapedChildrenTicks(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}

export const ticksToMs = (ticks: number) => (ticks * 1000) / ticksPerSecond();

/** The process and all its descendants, found by the parent pid in /proc/<pid>/stat (no kernel option needed). */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const siblings = children.get(ppid) ?? [];
      siblings.push(Number(entry));
      children.set(ppid, siblings);
    } catch {
      // Gone between the listing and the read.
    }
  }
  const tree: number[] = [];
  for (const queue = [rootPid]; queue.length > 0;) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** utime + stime of every process in the tree under rootPid, by pid. */
export function treeTicks(rootPid: number): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of processTree(rootPid)) {
    const t = cpuTicks(pid);
    if (t !== null) ticks.set(pid, t);
  }
  return ticks;
}

/** VmRSS of a process in bytes, or undefined when it is gone. */
export function residentBytes(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
