import type { BrowserContext, CDPSession, Page } from 'puppeteer-core';
import type { Logger } from '@trawl/observability';
import type { EgressProxy, ProxySession, UpstreamChooser } from '../egress-proxy';
import { BrowserError, BrowserErrorCode } from './browser.errors';
import { ChromiumProcess, type ChromiumLaunchOptions } from './chromium-process';
import { parkPage, trackActivity, type PageActivity, type ReusablePage } from './page-reuse';
import { sweepStaleBrowserFolders } from './stale-folders';
import { withTimeout } from './with-timeout';

export interface BrowserPoolOptions {
  /** Egress proxy every context's traffic goes through. */
  proxy: EgressProxy;
  /** Chromium binary or Debian's wrapper script. Default: `/usr/bin/chromium`. */
  executablePath?: string;
  /** Browsers kept running. Default: 2. */
  browsers?: number;
  /** Pages rendering at once in one browser. Default: 4. */
  pagesPerBrowser?: number;
  /**
   * A browser is retired (closed once idle, then replaced) after opening this many pages. A reused
   * page does not count again: its renderer is closed after `reuse.maxUses`. Default: 100.
   */
  retireAfterPages?: number;
  /** Requests allowed to wait for a slot; beyond it `acquire` fails at once with `PoolBusy`. Default: 256. */
  maxWaiting?: number;
  /** Time limit of each pool-side browser call (new context, new page, close), in ms. Default: 10,000. */
  callTimeoutMs?: number;
  /** Grace before SIGKILL when closing a browser, in ms. Default: 2,000. */
  closeGraceMs?: number;
  /** Pause before launching again after a failed launch, in ms. Default: 1,000. */
  relaunchDelayMs?: number;
  /** Reuse of pages between requests with the same `reuseKey` (see page-reuse.ts). Default: on. */
  reuse?: PageReuseOptions;
  /** Passed to each launch (temp folder root, launch and protocol timeouts, extra flags). */
  launch?: Omit<ChromiumLaunchOptions, 'executablePath' | 'proxyUrl'>;
  logger?: Logger;
}

export interface PageReuseOptions {
  /** Off: every request gets a fresh context, closed after it. Default: true. */
  enabled?: boolean;
  /** Pages kept parked per browser, beyond the ones rendering. Default: `pagesPerBrowser`. */
  maxParkedPerBrowser?: number;
  /** A page parked this long is closed, in ms. Default: 30,000. */
  idleMs?: number;
  /** A page is closed after serving this many requests. Default: 200. */
  maxUses?: number;
}

/** One request's share of the pool: an isolated context with one page, and its egress session. */
export interface BrowserLease {
  page: Page;
  context: BrowserContext;
  /** The context's egress proxy session: refusals and bytes of this page only. */
  egress: ProxySession;
  /** Time limit for a single browser call, in ms (as configured). */
  callTimeoutMs: number;
  /** True while the browser under this lease is alive. */
  isConnected(): boolean;
  /** Whether the page served an earlier request of the same key (it was parked, not opened for this one). */
  reused: boolean;
  /**
   * Marks the page as not fit for another request (it intercepts requests, runs injected scripts,
   * emulates a device…): it is closed after `work` instead of parked.
   */
  discard(): void;
}

export interface LeaseRequest {
  /** Epoch ms: a request still waiting for a slot then fails with `PoolBusy`. */
  deadlineAt: number;
  /** Upstream proxy choice for this context's traffic (premium, country, `session_id`). Default: direct. */
  upstream?: UpstreamChooser;
  /** Abandons the request (client gone, shutdown) with `Aborted`: while waiting, or by closing its context. */
  signal?: AbortSignal;
  /**
   * Requests with the same key may be served by the same page, one after another (wiped in
   * between): the tenant and everything that fixes the context's route (upstream proxy, session).
   * Never shared between tenants. Undefined: a fresh context, closed after the request.
   */
  reuseKey?: string;
}

/** Counters for metrics and tests. */
export interface BrowserPoolStats {
  /** Browsers up and accepting pages. */
  ready: number;
  /** Pages rendering now. */
  active: number;
  /** Requests waiting for a slot. */
  waiting: number;
  /** Browsers launched since start (replacements included). */
  launched: number;
  /** Browsers that died or disconnected on their own. */
  crashed: number;
  /** Browser launches that failed (Chromium did not start), since start. */
  launchFailed: number;
  /** Browsers retired after `retireAfterPages`. */
  retired: number;
  /** Requests served by a parked page instead of a fresh context, since start. */
  reused: number;
  /** Pages that served a request cleanly but could not be wiped, so were closed (see `ParkRefusal`), since start. */
  unwipeable: number;
  /** Reused pages found unresponsive (`PageUnresponsive`) and closed, their requests retried in a fresh page, since start. */
  unresponsive: number;
  /** Pages parked now, waiting for a request with their key. */
  parked: number;
}

interface PooledBrowser {
  chromium: ChromiumProcess;
  active: number;
  opened: number;
  state: 'ready' | 'retiring' | 'dead';
}

interface ParkedPage extends ReusablePage {
  browser: PooledBrowser;
  key: string;
  egress: ProxySession;
  parkedAt: number;
  /** Stops watching the parked page for its renderer's death (see {@link BrowserPool.watchWhileParked}). */
  unwatch?: () => void;
}

/** A page that served a request (its DevTools session is made at its first parking). */
type UsedPage = Omit<ReusablePage, 'cdp'> & { cdp?: CDPSession; egress: ProxySession };

interface Waiter {
  resolve(browser: PooledBrowser): void;
  reject(error: BrowserError): void;
}

/**
 * N Chromium browsers, each rendering up to M pages at once, each page in a BrowserContext of its
 * own, reused only by requests with the same key (one tenant and route; see page-reuse.ts). A browser
 * is retired after opening K pages and replaced at once when it crashes or disconnects. Requests
 * beyond capacity wait in a bounded FIFO queue until their deadline.
 */
export class BrowserPool {
  private readonly slots: (PooledBrowser | undefined)[];
  private readonly waiters: Waiter[] = [];
  /** Browsers closing, pages being parked or closed: what `close()` waits for. */
  private readonly background = new Set<Promise<void>>();
  private readonly launching = new Set<Promise<unknown>>();
  private browserProxy?: ProxySession;
  private closed = false;
  private started?: Promise<void>;
  private closing?: Promise<void>;
  private readonly counters = { launched: 0, crashed: 0, launchFailed: 0, retired: 0, reused: 0, unwipeable: 0, unresponsive: 0 };
  private readonly parked: ParkedPage[] = [];
  private readonly reuse: Required<PageReuseOptions>;
  private sweeper?: NodeJS.Timeout;
  private readonly size: number;
  private readonly pagesPerBrowser: number;
  private readonly retireAfterPages: number;
  private readonly callTimeoutMs: number;

  constructor(private readonly options: BrowserPoolOptions) {
    this.size = options.browsers ?? 2;
    this.pagesPerBrowser = options.pagesPerBrowser ?? 4;
    this.retireAfterPages = options.retireAfterPages ?? 100;
    this.callTimeoutMs = options.callTimeoutMs ?? 10_000;
    this.slots = new Array<PooledBrowser | undefined>(this.size).fill(undefined);
    this.reuse = {
      enabled: options.reuse?.enabled ?? true,
      maxParkedPerBrowser: options.reuse?.maxParkedPerBrowser ?? this.pagesPerBrowser,
      idleMs: options.reuse?.idleMs ?? 30_000,
      maxUses: options.reuse?.maxUses ?? 200,
    };
  }

  /**
   * Launches the browsers. Safe to call twice.
   *
   * @throws BrowserError `LaunchFailed` when not one browser starts.
   */
  start(): Promise<void> {
    this.started ??= (async () => {
      const swept = await sweepStaleBrowserFolders(this.options.launch?.tempRoot);
      if (swept.length > 0)
        this.options.logger?.info({ folders: swept.length }, 'removed the folders of browsers a previous worker left behind');
      // Pages never use the browser-wide proxy; only Chromium's own traffic would, and it may go nowhere.
      this.browserProxy = await this.options.proxy.openSession({ denyAll: true });
      const results = await Promise.allSettled(this.slots.map((_, index) => this.launchInto(index)));
      if (results.every((result) => result.status === 'rejected')) {
        throw (results[0] as PromiseRejectedResult).reason;
      }
      results.forEach((result, index) => {
        if (result.status === 'rejected') this.relaunchLater(index);
      });
      if (this.reuse.enabled) {
        this.sweeper = setInterval(() => this.closeIdleParked(), Math.max(100, this.reuse.idleMs / 2));
        this.sweeper.unref();
      }
    })();
    return this.started;
  }

  /**
   * Runs `work` with an isolated context and page: a page parked for `request.reuseKey` on the
   * browser it gets, else a fresh one. Afterwards the page is parked for its key (in the background,
   * the slot held until then) unless `work` failed, discarded it or had no key; otherwise context
   * and egress session are closed before this returns. When `work` throws `PageUnresponsive` on a
   * reused page, that page is closed and `work` runs once more, in a fresh page.
   *
   * @throws BrowserError `PoolBusy` when no slot frees before `deadlineAt` or too many wait,
   *   `PoolClosed`, `Aborted` (signal, also while `work` runs), `CallTimeout`; `BrowserCrashed` when the browser died under `work`
   *   (whatever `work` threw then); otherwise what `work` throws.
   */
  async withPage<T>(request: LeaseRequest, work: (lease: BrowserLease) => Promise<T>): Promise<T> {
    try {
      return await this.serve(request, work, true);
    } catch (error) {
      if (!(error instanceof BrowserError && error.code === BrowserErrorCode.PageUnresponsive)) throw error;
      // Parked pages are not asked whether they answer before each request (a round trip on every
      // request): the rare one whose renderer hung while it waited is found here, and closed.
      this.counters.unresponsive++;
      this.options.logger?.warn('a reused page stopped answering; retrying its request in a fresh page');
      return this.serve(request, work, false);
    }
  }

  private async serve<T>(request: LeaseRequest, work: (lease: BrowserLease) => Promise<T>, mayReuse: boolean): Promise<T> {
    const key = this.reuse.enabled ? request.reuseKey : undefined;
    const browser = await this.acquire(request, key);
    let egress: ProxySession | undefined;
    let context: BrowserContext | undefined;
    let page: Page | undefined;
    let cdp: CDPSession | undefined;
    let uses = 0;
    let activity: PageActivity = { origins: new Set(), openedWindow: false };
    let keep = key !== undefined;
    // Closing the context makes every pending call of `work` fail at once: the page stops loading.
    const onAbort = () => void context?.close().catch(() => undefined);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const reused = key === undefined || !mayReuse ? undefined : this.takeParked(browser, key);
      if (reused) {
        ({ egress, context, page, cdp, uses, activity } = reused);
      } else {
        this.countOpened(browser);
        egress = await this.options.proxy.openSession({ upstream: request.upstream });
        context = await withTimeout(
          browser.chromium.browser.createBrowserContext({ proxyServer: egress.url, proxyBypassList: ['<-loopback>'] }),
          this.callTimeoutMs,
          'createBrowserContext',
        );
        page = await withTimeout(context.newPage(), this.callTimeoutMs, 'newPage');
        if (key !== undefined) activity = trackActivity(page);
      }
      return await work({
        page,
        context,
        egress,
        callTimeoutMs: this.callTimeoutMs,
        isConnected: () => browser.chromium.connected,
        reused: reused !== undefined,
        discard: () => (keep = false),
      });
    } catch (error) {
      keep = false;
      if (request.signal?.aborted) throw new BrowserError(BrowserErrorCode.Aborted, 'The request was abandoned', { cause: error });
      if (!browser.chromium.connected) {
        throw new BrowserError(BrowserErrorCode.BrowserCrashed, 'The browser stopped while rendering the page', { cause: error });
      }
      if (error instanceof BrowserError && error.code === BrowserErrorCode.CallTimeout) this.retire(browser);
      throw error;
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      if (keep && !request.signal?.aborted && context && page && egress) {
        // The answer need not wait for the wipe; the slot stays taken until the page is parked.
        this.inBackground(this.parkOrClose(browser, key!, { context, page, egress, cdp, uses: uses + 1, activity }));
      } else {
        await this.closeLease(browser, context, egress);
        this.release(browser);
      }
    }
  }

  /** A snapshot of the pool's counters. */
  stats(): BrowserPoolStats {
    const browsers = this.slots.filter((slot): slot is PooledBrowser => slot !== undefined);
    return {
      ready: browsers.filter((b) => b.state === 'ready').length,
      active: browsers.reduce((sum, b) => sum + b.active, 0),
      waiting: this.waiters.length,
      parked: this.parked.length,
      ...this.counters,
    };
  }

  /** Process group ids of the running browsers (for tests and diagnostics). */
  browserProcessGroups(): number[] {
    return this.slots
      .filter((slot): slot is PooledBrowser => slot !== undefined && slot.state !== 'dead')
      .map((slot) => slot.chromium.pgid);
  }

  /**
   * Fails every waiter with `PoolClosed`, kills every browser's process group and removes their
   * temp folders. Pages still rendering fail. Safe to call twice.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      clearInterval(this.sweeper);
      for (const waiter of this.waiters.splice(0))
        waiter.reject(new BrowserError(BrowserErrorCode.PoolClosed, 'The browser pool is closed'));
      await Promise.allSettled([...this.launching]);
      this.slots.forEach((slot, index) => {
        if (slot) this.closeBrowser(slot);
        this.slots[index] = undefined;
      });
      await Promise.allSettled([...this.background]);
      await this.browserProxy?.close();
    })();
    return this.closing;
  }

  private acquire(request: LeaseRequest, key?: string): Promise<PooledBrowser> {
    if (this.closed) return Promise.reject(new BrowserError(BrowserErrorCode.PoolClosed, 'The browser pool is closed'));
    if (request.signal?.aborted) return Promise.reject(new BrowserError(BrowserErrorCode.Aborted, 'The request was abandoned'));
    const free = this.waiters.length === 0 ? this.freeBrowser(key) : undefined;
    if (free) return Promise.resolve(this.take(free));
    if (this.waiters.length >= (this.options.maxWaiting ?? 256)) {
      return Promise.reject(new BrowserError(BrowserErrorCode.PoolBusy, 'Every browser is busy and the queue is full'));
    }
    return new Promise<PooledBrowser>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
      };
      const waiter: Waiter = {
        resolve: (browser) => {
          done();
          resolve(browser);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      const timer = setTimeout(
        () => waiter.reject(new BrowserError(BrowserErrorCode.PoolBusy, 'No browser slot freed before the deadline')),
        Math.max(0, request.deadlineAt - Date.now()),
      );
      const onAbort = () => waiter.reject(new BrowserError(BrowserErrorCode.Aborted, 'The request was abandoned'));
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** A ready browser with a free slot, if any: one with a page parked for `key` first, else the least busy. */
  private freeBrowser(key?: string): PooledBrowser | undefined {
    let best: PooledBrowser | undefined;
    for (const slot of this.slots) {
      if (slot?.state !== 'ready' || slot.active >= this.pagesPerBrowser || !slot.chromium.connected) continue;
      if (key !== undefined && this.parked.some((parked) => parked.browser === slot && parked.key === key)) return slot;
      if (!best || slot.active < best.active) best = slot;
    }
    return best;
  }

  /**
   * Takes the most recently parked page for `key` on `browser`; undefined if none. No DevTools
   * call: a parked page whose renderer died or that closed has left the list already (see
   * {@link watchWhileParked}), and a round trip here waited for the busy browser on every request.
   */
  private takeParked(browser: PooledBrowser, key: string): ParkedPage | undefined {
    const at = this.parked.findLastIndex((parked) => parked.browser === browser && parked.key === key);
    if (at < 0) return undefined;
    const [parked] = this.parked.splice(at, 1);
    parked.unwatch?.();
    parked.egress.resetStats();
    this.counters.reused++;
    return parked;
  }

  private async closeLease(browser: PooledBrowser, context: BrowserContext | undefined, egress: ProxySession | undefined): Promise<void> {
    if (context && browser.chromium.connected) {
      await withTimeout(context.close(), this.callTimeoutMs, 'context.close').catch(() => this.retire(browser));
    }
    await egress?.close();
  }

  private async parkOrClose(browser: PooledBrowser, key: string, used: UsedPage): Promise<void> {
    try {
      if (!(await this.park(browser, key, used))) await this.closeLease(browser, used.context, used.egress);
    } finally {
      this.release(browser);
    }
  }

  /** Work the pool finishes on its own (parking, closing parked pages); `close()` waits for it. */
  private inBackground(work: Promise<void>): void {
    const settled = work.catch((error: unknown) => this.options.logger?.warn({ err: error }, 'browser pool background work failed'));
    this.background.add(settled);
    void settled.finally(() => this.background.delete(settled));
  }

  /** Parks a page that served a request, for the next request with `key`; false when it cannot be. */
  private async park(browser: PooledBrowser, key: string, used: UsedPage): Promise<boolean> {
    if (browser.state !== 'ready' || !browser.chromium.connected || used.uses >= this.reuse.maxUses || this.closed) return false;
    try {
      const cdp = used.cdp ?? (await withTimeout(used.page.createCDPSession(), this.callTimeoutMs, 'createCDPSession'));
      const parked: ParkedPage = { ...used, cdp, browser, key, parkedAt: Date.now() };
      const refusal = await parkPage(parked, this.callTimeoutMs);
      // Idle from when it is ready to serve: a slow wipe must not count against its idle time.
      parked.parkedAt = Date.now();
      if (refusal) {
        this.counters.unwipeable++;
        this.options.logger?.debug({ reason: refusal }, 'a used page cannot be wiped; closing it');
        return false;
      }
      if (browser.state !== 'ready' || this.closed) return false;
      const ofBrowser = this.parked.filter((other) => other.browser === browser);
      if (ofBrowser.length >= this.reuse.maxParkedPerBrowser) this.discardParked(ofBrowser[0]);
      this.parked.push(parked);
      this.watchWhileParked(parked);
      return true;
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'a used page could not be wiped; closing it');
      return false;
    }
  }

  /** A parked page whose renderer crashes, or that closes, leaves the list at once: no request gets it. */
  private watchWhileParked(parked: ParkedPage): void {
    const gone = () => {
      if (!this.parked.includes(parked)) return;
      this.options.logger?.warn({ pgid: parked.browser.chromium.pgid }, 'a parked page crashed or closed; discarding it');
      this.discardParked(parked);
    };
    // puppeteer reports a renderer crash (Inspector.targetCrashed) as the page's 'error' event.
    parked.page.on('error', gone);
    parked.page.on('close', gone);
    parked.unwatch = () => {
      parked.page.off('error', gone);
      parked.page.off('close', gone);
      parked.unwatch = undefined;
    };
  }

  /** Closes a parked page (out of the list) without waiting; its context dies anyway with a browser that is closing. */
  private discardParked(parked: ParkedPage, browserClosing = false): void {
    parked.unwatch?.();
    const at = this.parked.indexOf(parked);
    if (at >= 0) this.parked.splice(at, 1);
    this.inBackground(
      (async () => {
        if (!browserClosing && parked.browser.chromium.connected) {
          await withTimeout(parked.context.close(), this.callTimeoutMs, 'context.close').catch(() => undefined);
        }
        await parked.egress.close();
      })(),
    );
  }

  private closeIdleParked(): void {
    const before = Date.now() - this.reuse.idleMs;
    for (const parked of this.parked.filter((p) => p.parkedAt < before)) this.discardParked(parked);
  }

  private take(browser: PooledBrowser): PooledBrowser {
    browser.active++;
    return browser;
  }

  /** Counts a page opened in `browser` (Chromium's leaks grow with contexts opened); retires it at its budget. */
  private countOpened(browser: PooledBrowser): void {
    browser.opened++;
    if (browser.opened >= this.retireAfterPages) this.retire(browser);
  }

  private dispatch(): void {
    while (this.waiters.length > 0) {
      const browser = this.freeBrowser();
      if (!browser) return;
      this.waiters[0].resolve(this.take(browser));
    }
  }

  private release(browser: PooledBrowser): void {
    browser.active--;
    if (browser.state === 'retiring' && browser.active === 0) this.replace(browser);
    this.dispatch();
  }

  /** Takes no new page; replaced once its last page is done. */
  private retire(browser: PooledBrowser): void {
    if (browser.state !== 'ready') return;
    browser.state = 'retiring';
    this.counters.retired++;
    for (const parked of this.parked.filter((p) => p.browser === browser)) this.discardParked(parked);
    if (browser.active === 0) this.replace(browser);
  }

  private replace(browser: PooledBrowser): void {
    const index = this.slots.indexOf(browser);
    this.closeBrowser(browser);
    if (index < 0) return;
    this.slots[index] = undefined;
    if (!this.closed) this.launchInto(index).catch(() => this.relaunchLater(index));
  }

  private closeBrowser(browser: PooledBrowser): void {
    browser.state = 'dead';
    for (const parked of this.parked.filter((p) => p.browser === browser)) this.discardParked(parked, true);
    this.inBackground(browser.chromium.close(this.options.closeGraceMs ?? 2_000));
  }

  /** Launches a browser into slot `index`; `close()` waits for launches in flight. */
  private launchInto(index: number): Promise<void> {
    const launch = this.launchBrowser(index);
    this.launching.add(launch);
    void launch.catch(() => undefined).finally(() => this.launching.delete(launch));
    return launch;
  }

  private async launchBrowser(index: number): Promise<void> {
    let chromium: ChromiumProcess;
    try {
      chromium = await ChromiumProcess.launch({
        ...this.options.launch,
        executablePath: this.options.executablePath,
        proxyUrl: this.browserProxy!.url,
      });
    } catch (error) {
      this.counters.launchFailed++;
      this.options.logger?.error({ err: error }, 'Chromium did not start');
      throw error;
    }
    if (this.closed) {
      await chromium.close(this.options.closeGraceMs ?? 2_000);
      return;
    }
    this.counters.launched++;
    const pooled: PooledBrowser = { chromium, active: 0, opened: 0, state: 'ready' };
    chromium.browser.once('disconnected', () => {
      if (pooled.state === 'dead') return;
      this.counters.crashed++;
      this.options.logger?.warn({ pgid: chromium.pgid }, 'Chromium disconnected; replacing it');
      this.replace(pooled);
    });
    this.slots[index] = pooled;
    this.dispatch();
  }

  private relaunchLater(index: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      if (this.closed || this.slots[index]) return;
      this.launchInto(index).catch(() => this.relaunchLater(index));
    }, this.options.relaunchDelayMs ?? 1_000);
    timer.unref();
  }
}
