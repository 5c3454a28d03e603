import { readFileSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processIds } from './process-group';

/** Prefix of the folder each browser gets (profile and temp files), made by `ChromiumProcess.launch`. */
export const BROWSER_FOLDER_PREFIX = 'trawl-chromium-';

/**
 * A folder younger than this may belong to a browser being started (the folder is made a moment
 * before Chromium, whose command line names it): left alone.
 */
const DEFAULT_MIN_AGE_MS = 10_000;

/**
 * Removes the browser folders under `tempRoot` that no running process uses: those of browsers
 * whose worker died without closing them (killed, out of memory). Their browsers are gone with it
 * (they quit when the worker's pipe closes), but their folders, a profile of several MB each,
 * stay; in a pod whose container restarts, they would fill its `/tmp` one crash at a time. A
 * folder another live worker's browser uses (several workers on one machine), or one younger than
 * `minAgeMs` (a browser starting), is kept. Best effort: what cannot be read or removed stays.
 *
 * @returns the folders removed
 */
export async function sweepStaleBrowserFolders(tempRoot = tmpdir(), minAgeMs = DEFAULT_MIN_AGE_MS): Promise<string[]> {
  const names = await readdir(tempRoot).catch(() => [] as string[]);
  const candidates = names.filter((name) => name.startsWith(BROWSER_FOLDER_PREFIX)).map((name) => join(tempRoot, name));
  if (candidates.length === 0) return [];
  const inUse = commandLines();
  const removed: string[] = [];
  for (const folder of candidates) {
    const info = await stat(folder).catch(() => undefined);
    if (!info?.isDirectory() || Date.now() - info.mtimeMs < minAgeMs) continue;
    // A browser names its profile, inside the folder, in its command line (`--user-data-dir=`).
    if (inUse.some((command) => command.includes(`${folder}/`))) continue;
    await rm(folder, { recursive: true, force: true, maxRetries: 3 }).then(
      () => removed.push(folder),
      () => undefined,
    );
  }
  return removed;
}

/** The command lines of every process (Linux /proc), arguments joined by spaces. */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const pid of processIds()) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // gone between readdir and read
    }
  }
  return lines;
}
