import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { quietRuntime } from './quiet-runtime';
import { BrowserError, BrowserErrorCode } from './browser.errors';
import { STEALTH_FLAGS } from './identity-emulation';
import { killProcessGroup } from './process-group';
import { BROWSER_FOLDER_PREFIX } from './stale-folders';
import { withTimeout } from './with-timeout';

/** Flags every browser gets (ARCHITECTURE §5 "Running it"). */
export const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
  '--mute-audio',
  // WebRTC's ICE sends UDP straight from the worker's interfaces, past the egress proxy and its
  // policy, and shows targets the worker's own address. Only proxied (TCP) candidates remain, and
  // the egress proxy refuses what it would not carry anyway.
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  // Chromium keeps one spare renderer warm for the context it last navigated in; with many contexts
  // navigating in turn it kills and starts one at nearly every load (measured: ~30 % of the CPU
  // of rendering a small page here). A server gains nothing from it.
  '--disable-features=SpareRendererForSitePerProcess',
  ...STEALTH_FLAGS,
] as const;

export interface ChromiumLaunchOptions {
  /** Chromium binary or Debian's wrapper script. Default: `/usr/bin/chromium`. */
  executablePath?: string;
  /**
   * Browser-wide proxy (`--proxy-server`). Contexts get their own; this one only carries what
   * Chromium sends outside any page, so the pool gives it a deny-all egress session.
   */
  proxyUrl: string;
  /** Folder under which the browser's temp folder (profile included) is made. Default: `os.tmpdir()`. */
  tempRoot?: string;
  /** Time for Chromium to start and answer, in ms. Default: 30,000. */
  launchTimeoutMs?: number;
  /** Time limit of each DevTools protocol call puppeteer makes, in ms. Default: 30,000. */
  protocolTimeoutMs?: number;
  /** More flags, e.g. `--lang=en-US`. Default: none. */
  extraArgs?: readonly string[];
}

/**
 * One Chromium started in a process group of its own (puppeteer spawns it `detached` on Linux, so
 * its pid is the group id) with a fresh profile in a temp folder, driven over a pipe (it quits when
 * the worker's end closes). `close()` kills the whole group — renderers, GPU and zygote helpers
 * included, which outlive a plain kill of the browser — and removes the folder.
 */
export class ChromiumProcess {
  private closing?: Promise<void>;

  private constructor(
    readonly browser: Browser,
    /** Process group id (= the browser's pid). */
    readonly pgid: number,
    /** Temp folder holding the profile; removed on close. */
    readonly tempDir: string,
    /** The `--user-data-dir=…` argument, to find this browser's processes in /proc. */
    readonly userDataDirArgument: string,
  ) {}

  /**
   * Starts a browser.
   *
   * @throws BrowserError `LaunchFailed` (the temp folder is removed first).
   */
  static async launch(options: ChromiumLaunchOptions): Promise<ChromiumProcess> {
    const tempDir = await mkdtemp(join(options.tempRoot ?? tmpdir(), BROWSER_FOLDER_PREFIX));
    const profileDir = join(tempDir, 'profile');
    const chromiumTemp = join(tempDir, 'tmp');
    await mkdir(chromiumTemp);
    const launchTimeoutMs = options.launchTimeoutMs ?? 30_000;
    let browser: Browser | undefined;
    try {
      browser = await puppeteer.launch({
        executablePath: options.executablePath ?? '/usr/bin/chromium',
        // Headless comes from our own flag list so the mode is exactly `--headless=new`.
        headless: false,
        userDataDir: profileDir,
        args: [...CHROMIUM_FLAGS, `--proxy-server=${options.proxyUrl}`, '--proxy-bypass-list=<-loopback>', ...(options.extraArgs ?? [])],
        // The worker decides when browsers close (graceful shutdown), not puppeteer's signal hooks.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        // DevTools over the browser's own pipes, not a port: Chromium quits when they close, so a
        // worker that dies without closing it (SIGKILL, out of memory) leaves no browser behind
        // (its process group is its own), and no local DevTools port is open for another process
        // in the pod to drive the browser or for a page's scan of localhost to find.
        pipe: true,
        timeout: launchTimeoutMs,
        protocolTimeout: options.protocolTimeoutMs ?? 30_000,
        defaultViewport: null,
        // DevTools "issues" (Audits: mixed content, cookie and CORS problems) are reported for every
        // request, work in the browser and the renderer that no part of Trawl reads: ~5 % of
        // Chromium's CPU per page measured here.
        issuesEnabled: false,
        // Chromium's own temp files (shared memory with --disable-dev-shm-usage, crash dumps) go in our
        // folder, so a killed browser leaves nothing in /tmp. The rest of the environment is passed as
        // puppeteer would (this forwards it; it configures nothing, so it is not config.ts's business).
        env: { ...process.env, TMPDIR: chromiumTemp },
      });
      const pid = browser.process()?.pid;
      if (pid === undefined) throw new Error('Chromium started without a process id');
      // Before any page of ours exists: each one's DevTools session then never enables Runtime.
      quietRuntime(browser);
      return new ChromiumProcess(browser, pid, tempDir, `--user-data-dir=${profileDir}`);
    } catch (error) {
      const pid = browser?.process()?.pid;
      if (pid !== undefined) await killProcessGroup(pid, 1_000);
      await rm(tempDir, { recursive: true, force: true, maxRetries: 3 });
      throw new BrowserError(BrowserErrorCode.LaunchFailed, 'Chromium could not be started', { cause: error });
    }
  }

  /** False once Chromium died or its DevTools connection dropped. */
  get connected(): boolean {
    return this.browser.connected;
  }

  /**
   * Asks Chromium to quit, then kills its process group (SIGTERM, SIGKILL after `graceMs`) and
   * removes the temp folder. Safe to call twice (and after a crash).
   *
   * @param graceMs time for each of: the polite close, SIGTERM to take effect. Default: 2,000.
   */
  close(graceMs = 2_000): Promise<void> {
    this.closing ??= (async () => {
      if (this.browser.connected) await withTimeout(this.browser.close(), graceMs, 'browser.close').catch(() => undefined);
      await killProcessGroup(this.pgid, graceMs);
      // Reap the group leader (our own child) so it does not stay a zombie.
      const child = this.browser.process();
      if (child && child.exitCode === null && child.signalCode === null) {
        await withTimeout(new Promise((resolve) => child.once('exit', resolve)), graceMs, 'browser exit').catch(() => undefined);
      }
      await rm(this.tempDir, { recursive: true, force: true, maxRetries: 3 });
    })();
    return this.closing;
  }
}
