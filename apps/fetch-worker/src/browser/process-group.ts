import { readdirSync, readFileSync } from 'node:fs';

/** One process as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  /** Process group id. */
  pgrp: number;
  /** `R`, `S`, `Z` (zombie), … */
  state: string;
}

function readStat(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: fields[0], pgrp: Number(fields[2]) };
  } catch {
    return undefined; // gone between readdir and read
  }
}

/** Ids of every process now (Linux /proc). */
export function processIds(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/**
 * Processes of group `pgid` (Linux /proc). Zombies are left out unless asked for: a zombie whose
 * parent is gone is the init process's to reap, and holds no memory or files.
 */
export function processesInGroup(pgid: number, { includeZombies = false } = {}): ProcessInfo[] {
  return processIds()
    .map(readStat)
    .filter((info): info is ProcessInfo => info !== undefined && info.pgrp === pgid && (includeZombies || info.state !== 'Z'));
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Ends every process of group `pgid`: SIGTERM, then SIGKILL for what is still alive after
 * `graceMs`; resolves once no live member is left (or `graceMs` after the SIGKILL).
 */
export async function killProcessGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  if (await groupGoneWithin(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await groupGoneWithin(pgid, graceMs);
}

async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (processesInGroup(pgid).length === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
