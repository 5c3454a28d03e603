import { readdirSync, readFileSync } from 'node:fs';

/** A live process as Linux /proc shows it. */
export interface LiveProcess {
  pid: number;
  ppid: number;
  /** Its command line, arguments joined by spaces. */
  command: string;
}

function read(pid: number): (LiveProcess & { state: string }) | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid: Number(fields[1]), state: fields[0], command };
  } catch {
    return undefined; // gone between readdir and read
  }
}

/** Every process alive now (zombies left out: they hold no memory and are init's to reap). */
function liveProcesses(): LiveProcess[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => read(Number(name)))
    .filter((info): info is LiveProcess & { state: string } => info !== undefined && info.state !== 'Z');
}

/** The live descendants of `pid` (children, their children…). */
export function descendantsOf(pid: number): LiveProcess[] {
  const all = liveProcesses();
  const found: LiveProcess[] = [];
  let parents = new Set([pid]);
  while (parents.size > 0) {
    const children = all.filter((info) => parents.has(info.ppid));
    found.push(...children);
    parents = new Set(children.map((child) => child.pid));
  }
  return found;
}

/** Which of `pids` are still alive (not zombies). */
export function stillAlive(pids: readonly number[]): number[] {
  const alive = new Set(liveProcesses().map((info) => info.pid));
  return pids.filter((pid) => alive.has(pid));
}
