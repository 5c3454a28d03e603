import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * What Linux's /proc says about processes: resident memory, peak resident memory and CPU time.
 * The benchmark's processes are separate (the services, the fixture web, the Crawlee run), so this is
 * the one way to measure them alike.
 */

/** Resident memory of a process, in bytes. */
export interface ProcessMemory {
  /** Current resident set (VmRSS). */
  rssBytes: number;
  /** Highest resident set since the process started (VmHWM). */
  peakRssBytes: number;
}

let clockTicks: number | undefined;

/** Kernel clock ticks per second, the unit of utime/stime in /proc/<pid>/stat (usually 100). */
function ticksPerSecond(): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clockTicks;
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined; // gone, or not ours to read
  }
}

function statusKiB(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : 0;
}

/** VmRSS and VmHWM of `pid`, or undefined once it has exited. */
export function processMemory(pid: number): ProcessMemory | undefined {
  const status = readProc(pid, 'status');
  if (status === undefined) return undefined;
  return { rssBytes: statusKiB(status, 'VmRSS') * 1024, peakRssBytes: statusKiB(status, 'VmHWM') * 1024 };
}

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): { command: string; rest: string[] } | undefined {
  const stat = readProc(pid, 'stat');
  if (stat === undefined) return undefined;
  const close = stat.lastIndexOf(')');
  return { command: stat.slice(stat.indexOf('(') + 1, close), rest: stat.slice(close + 2).split(' ') };
}

/** User + system CPU time `pid` has used so far, in seconds (0 once it has exited). */
export function processCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  if (!fields) return 0;
  // rest[0] is field 3 (state): utime and stime are fields 14 and 15.
  return (Number(fields.rest[11]) + Number(fields.rest[12])) / ticksPerSecond();
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/**
 * The child of this process whose command line contains `scriptPath` (e.g.
 * `dist/apps/fetch-worker/src/main.js`), or undefined when none runs.
 */
export function childRunning(scriptPath: string): number | undefined {
  for (const pid of allPids()) {
    const fields = statFields(pid);
    if (!fields || Number(fields.rest[1]) !== process.pid) continue;
    const commandLine = readProc(pid, 'cmdline')?.split('\0') ?? [];
    if (commandLine.some((arg) => arg.endsWith(scriptPath))) return pid;
  }
  return undefined;
}

/** Every process whose command name (`comm`, 15 characters at most) is `command`, e.g. `postgres`. */
export function processesNamed(command: string): number[] {
  return allPids().filter((pid) => statFields(pid)?.command === command);
}

/** Processes named `command` whose command line (a Postgres backend's title names its database) contains `part`. */
export function processesNamedWith(command: string, part: string): number[] {
  return processesNamed(command).filter((pid) => (readProc(pid, 'cmdline') ?? '').includes(part));
}

/** CPU seconds the whole machine spent busy (all cores, everything but idle and I/O wait) since boot. */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]; // "cpu  user nice system idle iowait irq softirq steal …"
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const idle = ticks[3] + ticks[4];
  return (ticks.reduce((a, b) => a + b, 0) - idle) / ticksPerSecond();
}

/** `pid` and every process descended from it (Chromium's browser, zygotes and renderers under a worker). */
export function processTree(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const candidate of allPids()) {
    const fields = statFields(candidate);
    if (fields) parentOf.set(candidate, Number(fields.rest[1]));
  }
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parentOf) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Resident set of `pid` and all its descendants together (shared pages counted once per process). */
export function treeRssBytes(pid: number): number {
  return processTree(pid).reduce((sum, member) => sum + (processMemory(member)?.rssBytes ?? 0), 0);
}

/**
 * Proportional set size of `pid` and all its descendants: each shared page divided among the
 * processes that map it, so the sum is what the tree really holds (an RSS sum counts Chromium's
 * shared code and memory once per process). Reading smaps_rollup walks page tables: sample it
 * seldom.
 */
export function treePssBytes(pid: number): number {
  return groupPssBytes(processTree(pid));
}

/** Proportional set size of the given processes together (see {@link treePssBytes}); processes gone meanwhile count 0. */
export function groupPssBytes(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => {
    const rollup = readProc(pid, 'smaps_rollup');
    return sum + (rollup === undefined ? 0 : statusKiB(rollup, 'Pss') * 1024);
  }, 0);
}
