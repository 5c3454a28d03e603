import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { waitFor } from '@trawl/testing';
import { BROWSER_FOLDER_PREFIX, sweepStaleBrowserFolders } from '../src/browser/stale-folders';

describe(sweepStaleBrowserFolders.name, () => {
  let tempRoot: string;
  let holder: ChildProcess | undefined;

  beforeEach(async () => {
    tempRoot = await mkdtemp(join(tmpdir(), 'trawl-sweep-test-'));
  });
  afterEach(async () => {
    holder?.kill('SIGKILL');
    if (holder && holder.exitCode === null && holder.signalCode === null) await once(holder, 'exit');
    await rm(tempRoot, { recursive: true, force: true });
  });

  /** A browser folder as `ChromiumProcess.launch` makes it, last changed `ageMs` ago. */
  async function browserFolder(name: string, ageMs: number): Promise<string> {
    const folder = join(tempRoot, `${BROWSER_FOLDER_PREFIX}${name}`);
    await mkdir(join(folder, 'profile'), { recursive: true });
    const at = new Date(Date.now() - ageMs);
    await utimes(folder, at, at);
    return folder;
  }

  it('removes folders no process uses, and keeps those a live browser names and those just made', async () => {
    await browserFolder('left-behind', 120_000);
    const used = await browserFolder('in-use', 120_000);
    await browserFolder('starting', 1_000);
    await mkdir(join(tempRoot, 'someone-elses'));
    // A process whose command line names the folder's profile, as a running Chromium's does.
    holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', `--user-data-dir=${used}/profile`], { stdio: 'ignore' });
    await waitFor(async () => (await readdir('/proc')).includes(String(holder!.pid)), { what: 'the holder to run' });

    const removed = await sweepStaleBrowserFolders(tempRoot);

    expect(removed).toEqual([join(tempRoot, `${BROWSER_FOLDER_PREFIX}left-behind`)]);
    expect((await readdir(tempRoot)).sort()).toEqual([
      'someone-elses',
      `${BROWSER_FOLDER_PREFIX}in-use`,
      `${BROWSER_FOLDER_PREFIX}starting`,
    ]);
  });

  it('answers nothing removed for a temp root that does not exist', async () => {
    await expect(sweepStaleBrowserFolders(join(tempRoot, 'missing'))).resolves.toEqual([]);
  });
});
