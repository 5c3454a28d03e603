import type { BrowserContext, CDPSession, Frame, Page } from 'puppeteer-core';
import { randomUUID } from 'node:crypto';
import { withTimeout } from './with-timeout';

/**
 * Why pages are reused at all: a fresh page starts a Chromium renderer process, which measured
 * ~370 ms of CPU here against ~70 ms for loading a small page in a live one, so rendering with a
 * fresh context per request runs at a fraction of what a browser can do. A page is reused only by
 * the same tenant through the same route (see `LeaseRequest.reuseKey`): tenants never share a
 * context. Between two requests the old document is silenced (its timers cleared, its loads
 * stopped, its DOM and frames dropped) and its cookies and the storage of every origin it showed
 * wiped. Navigating to about:blank instead would swap the renderer process and lose the gain. The
 * page is not frozen (`Page.setWebLifecycleState`): Chromium 156 leaves a page frozen and made active
 * again hidden, so its next document had no animation frames and no IntersectionObserver (element
 * screenshots and clicks waited out their timeouts), and making it visible again (focus emulation)
 * cost its renderer ~15 % more CPU per page. What is left: a callback the old document had already
 * queued (a fetch's answer, a message) may run while the page waits or before the next
 * navigation's commit, in a document without DOM or timers. That is the same tenant's own page.
 */
export interface ReusablePage {
  context: BrowserContext;
  page: Page;
  /** The page's DevTools session, kept for the next park and wake. */
  cdp: CDPSession;
  /** Requests this page has served. */
  uses: number;
  /** What the page did since it was last wiped (see {@link trackActivity}). */
  activity: PageActivity;
}

export interface PageActivity {
  /** Origins of the documents its frames committed. */
  origins: Set<string>;
  /** Whether it opened a window (a popup's target may not be attached yet when parking looks). */
  openedWindow: boolean;
}

/** Where a parked document is moved (see {@link leaveParkedUrl}); its commits are not the tenant's. */
const PARKED_PATH = '/__trawl_parked__';

/**
 * Records what parking must know of a page's request: the origin of every document its frames
 * commit (a tab that left an origin, by a script redirect or a frame that navigated away, cannot be
 * wiped there and is closed instead), and whether it opened a window.
 */
export function trackActivity(page: Page): PageActivity {
  const activity: PageActivity = { origins: new Set(), openedWindow: false };
  page.on('framenavigated', (frame) => {
    const url = httpUrl(frame.url());
    if (url && url.pathname !== PARKED_PATH) activity.origins.add(url.origin);
  });
  page.on('popup', () => (activity.openedWindow = true));
  return activity;
}

/**
 * Web-exposed storage, as wiped per origin or storage key. Not `all`: that adds the GPU shader
 * cache (nothing a page can read back, and ~4 ms of the browser's time per call, measured) and
 * cookies, which are cleared for the whole context at once instead. Storage buckets are not in the
 * list either (their data is, their names are not): a page that made one is closed instead. Not
 * `websql`: Chromium no longer has it, and DevTools refuses it as a storage type (checked, 156).
 */
const STORAGE_TYPES = 'local_storage,indexeddb,cache_storage,service_workers,file_systems';

/**
 * Stops the page's scripts and wipes what it stored: cookies, the storage (session storage too) of
 * its origin and of every frame it shows, the tab's name and history. Answers why not when the
 * page cannot be wiped completely and must be closed instead:
 * - session storage belongs to the tab and is reachable only from a document of its origin, and a
 *   frame's storage may be kept under a key that only the frame itself names (a third-party frame,
 *   or a same-origin frame under a cross-site one), so a tab that left an origin (a script sent it
 *   on, a frame navigated away or was removed) cannot be wiped;
 * - a window the page opened has a tab and frames of its own: rare enough to close them all;
 * - a script of the page broke the silencing (it replaced `window.stop`, `requestAnimationFrame`…),
 *   or the page named storage buckets;
 * - a worker of the page is running (see {@link WORKER_TARGETS}).
 */
export async function parkPage(target: ReusablePage, timeoutMs: number): Promise<ParkRefusal | undefined> {
  const { cdp, page, context, activity } = target;
  if (activity.openedWindow) return 'opened_window';
  const pages = await withTimeout(context.pages(), timeoutMs, 'pages');
  if (pages.some((other) => other !== page)) return 'opened_window';
  const mainFrame = page.mainFrame();
  const mainOrigin = httpOrigin(mainFrame.url());
  const frames = page.frames();
  const shown = new Set(frames.map((frame) => httpOrigin(frame.url())));
  if ([...activity.origins].some((origin) => !shown.has(origin))) return 'left_origin';

  // Frames, while they still exist (silencing the document drops them): each is silenced and its
  // session storage cleared from inside (a cross-site frame runs in a renderer of its own), and
  // its storage key is wiped when it is not the document's own.
  const subframes = frames.filter((frame) => frame !== mainFrame && httpOrigin(frame.url()));
  const frameKeys: string[] = [];
  if (subframes.length > 0) {
    const keyOf = (frame: Frame) =>
      withTimeout(cdp.send('Storage.getStorageKey', { frameId: frameIdOf(frame) }), timeoutMs, 'storage key').then(
        (answer) => answer.storageKey,
      );
    const [mainKey, ...keys] = await Promise.all([keyOf(mainFrame), ...subframes.map(keyOf)]);
    const silenced = await Promise.all(subframes.map((frame) => withTimeout(frame.evaluate(SILENCE_FRAME), timeoutMs, 'silence frame')));
    if (silenced.some((clean) => clean !== true)) return 'frame_not_silenced';
    frameKeys.push(...new Set(keys.filter((key) => key !== mainKey)));
  }

  const silenced = await withTimeout(
    cdp.send('Runtime.evaluate', { expression: SILENCE_DOCUMENT, returnByValue: true, awaitPromise: true }),
    timeoutMs,
    'silence document',
  );
  const outcome = silenced.result.value as { session: boolean; buckets: number } | undefined;
  if (silenced.exceptionDetails || !outcome) return 'not_silenced';
  if (outcome.buckets > 0) return 'storage_buckets';
  // Looked at once the document is silenced, so a worker it started just before has been announced.
  if (page.workers().length > 0 || context.targets().some((other) => WORKER_TARGETS.has(other.type()))) return 'workers_running';

  // The rest is independent: sent at once, it costs one round trip of waiting instead of one each
  // (the request's slot is held until the page is parked).
  const steps: Promise<unknown>[] = [
    // The next document must not see this one in its history (nor keep it alive for back/forward).
    withTimeout(cdp.send('Page.resetNavigationHistory'), timeoutMs, 'reset history'),
    // From a page's session this clears the cookies of its context only (checked), all domains.
    withTimeout(cdp.send('Network.clearBrowserCookies'), timeoutMs, 'clear cookies'),
    // The next request fetches afresh, as a new context would (a price watched every minute must
    // not come from an hour-long cache entry). Not by disabling the cache: that sends
    // `pragma: no-cache` with every request, which no person's browser does.
    withTimeout(cdp.send('Network.clearBrowserCache'), timeoutMs, 'clear cache'),
  ];
  if (mainOrigin) {
    steps.push(
      withTimeout(
        cdp.send('Storage.clearDataForOrigin', { origin: mainOrigin, storageTypes: STORAGE_TYPES }),
        timeoutMs,
        'clear origin data',
      ),
    );
    if (!outcome.session) {
      steps.push(
        withTimeout(
          cdp.send('DOMStorage.clear', { storageId: { securityOrigin: mainOrigin, isLocalStorage: false } }),
          timeoutMs,
          'clear session storage',
        ),
      );
    }
  }
  for (const storageKey of frameKeys) {
    steps.push(
      withTimeout(cdp.send('Storage.clearDataForStorageKey', { storageKey, storageTypes: STORAGE_TYPES }), timeoutMs, 'clear frame data'),
    );
  }
  await Promise.all(steps);
  activity.origins.clear();
  return undefined;
}

/** Why a page that served a request cleanly cannot be wiped, and is closed instead of parked. */
export type ParkRefusal = 'opened_window' | 'left_origin' | 'frame_not_silenced' | 'not_silenced' | 'storage_buckets' | 'workers_running';

/**
 * Workers run on after their document is silenced and its DOM dropped (only closing the tab ends
 * them): one would keep calling the target through the page's egress session, counted against the
 * tenant's next request, and write storage after the wipe. Rare enough to close the page instead.
 * Dedicated workers are the page's own (`page.workers()`); these are the context's.
 */
const WORKER_TARGETS: ReadonlySet<string> = new Set(['shared_worker', 'service_worker']);

/** DevTools' id of a frame; puppeteer keeps it on an internal field (frame ids name OOPIF targets too). */
function frameIdOf(frame: Frame): string {
  return (frame as unknown as { _id: string })._id;
}

/** Clears every timer and animation frame of the document and stops its loads. */
const STOP_SCRIPTS = `
  const lastTimer = setTimeout(() => {}, 0);
  for (let id = Math.max(0, lastTimer - 1_000_000); id <= lastTimer; id++) { clearTimeout(id); clearInterval(id); }
  const lastFrame = requestAnimationFrame(() => {});
  for (let id = Math.max(0, lastFrame - 100_000); id <= lastFrame; id++) cancelAnimationFrame(id);
  window.stop();`;

/** Session storage cleared (false: an opaque origin, with none to reach) and storage buckets named. */
const CLEAR_SESSION_AND_COUNT_BUCKETS = `
  let session = false;
  try { sessionStorage.clear(); session = true; } catch {}
  const buckets = navigator.storageBuckets ? (await navigator.storageBuckets.keys()).length : 0;`;

/** Silences the document and drops its DOM (and so its frames). */
const SILENCE_DOCUMENT = `(async () => {${STOP_SCRIPTS}
  // The name outlives same-site navigations of the tab: the next document must not read it.
  window.name = '';
  document.documentElement?.remove();${CLEAR_SESSION_AND_COUNT_BUCKETS}
  return { session, buckets };
})()`;

/** Run in a frame before the document drops it: true when it is silenced and holds no bucket. */
const SILENCE_FRAME = `(async () => {${STOP_SCRIPTS}${CLEAR_SESSION_AND_COUNT_BUCKETS}
  return buckets === 0;
})()`;

/**
 * A parked page keeps its last URL, so a request for that URL plus a `#fragment` would only move
 * within the silenced document (no new document, no load event). Such a request first moves the
 * document to a same-origin path no tenant asks for (only this case pays: moving every parked page
 * looked 10–15 ms of the browser's CPU per page slower). False when a script of the old page kept it
 * from moving.
 */
export async function leaveParkedUrl(page: Page, url: string, timeoutMs: number): Promise<boolean> {
  const target = new URL(url);
  if (!target.hash) return true;
  let current: URL;
  try {
    current = new URL(page.url());
  } catch {
    return true;
  }
  current.hash = '';
  target.hash = '';
  if (current.href !== target.href) return true;
  const marker = `${PARKED_PATH}?${randomUUID()}`;
  const moved = await withTimeout(
    page.evaluate(`history.replaceState(null, '', ${JSON.stringify(marker)}); location.href`),
    timeoutMs,
    'leave the parked URL',
  );
  return typeof moved === 'string' && moved.endsWith(marker);
}

function httpOrigin(url: string): string | undefined {
  return httpUrl(url)?.origin;
}

function httpUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
