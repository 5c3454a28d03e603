import type { BrowserContext, CDPSession, Frame, Page } from 'puppeteer-core';
import { withTimeout } from './with-timeout';

/**
 * Why pages are reused at all: a fresh page starts a Chromium renderer process, which measured
 * ~370 ms of CPU here against ~70 ms for loading a small page in a live one, so rendering with a
 * fresh context per request runs at a fraction of what a browser can do. A page is reused only by
 * the same tenant through the same route (see `LeaseRequest.reuseKey`): tenants never share a
 * context. Between two requests the old document is silenced (its timers cleared, its loads
 * stopped, its DOM and frames dropped), the page frozen, and its cookies and the storage of every
 * origin it showed wiped. Navigating to about:blank instead would swap the renderer process and
 * lose the gain; navigating a frozen page leaves the next document hidden (no animation frames).
 * What is left: a callback the old document had already queued (a fetch's answer, a message) may
 * run between the wake and the next navigation's commit. That is the same tenant's own page.
 */
export interface ReusablePage {
  context: BrowserContext;
  page: Page;
  /** The page's DevTools session, kept for the next park and wake. */
  cdp: CDPSession;
  /** Requests this page has served. */
  uses: number;
  /** Origins its frames showed since it was last wiped (see {@link trackOrigins}). */
  origins: Set<string>;
}

/**
 * Records the origin of every document the page's frames commit, so that parking can tell a tab
 * that left an origin (a script redirect, a frame that navigated away): its storage there is out of
 * reach, and the page is closed instead.
 */
export function trackOrigins(page: Page): Set<string> {
  const origins = new Set<string>();
  page.on('framenavigated', (frame) => {
    const origin = httpOrigin(frame.url());
    if (origin) origins.add(origin);
  });
  return origins;
}

/**
 * Web-exposed storage, as wiped per origin or storage key. Not `all`: that adds the GPU shader
 * cache (nothing a page can read back, and ~4 ms of the browser's time per call, measured) and
 * cookies, which are cleared for the whole context at once instead.
 */
const STORAGE_TYPES = 'local_storage,indexeddb,cache_storage,service_workers,file_systems,websql';

/**
 * Stops the page's scripts and wipes what it stored: cookies, the storage (session storage too) of
 * its origin and of every frame it shows, the tab's name and history. False, with nothing wiped,
 * when the page cannot be wiped completely and must be closed instead:
 * - session storage belongs to the tab and is reachable only from a document of its origin, and a
 *   third-party frame's storage is kept under a key that only the frame itself names, so a tab that
 *   left an origin (a script sent it on, a frame navigated away or was removed) cannot be wiped;
 * - a window the page opened has a tab and frames of its own: rare enough to close them all.
 */
export async function parkPage(target: ReusablePage, timeoutMs: number): Promise<boolean> {
  const { cdp, page, context, origins } = target;
  const pages = await withTimeout(context.pages(), timeoutMs, 'pages');
  if (pages.some((other) => other !== page)) return false;
  const mainFrame = page.mainFrame();
  const mainOrigin = httpOrigin(mainFrame.url());
  const shown = new Set(page.frames().map((frame) => httpOrigin(frame.url())));
  if ([...origins].some((origin) => !shown.has(origin))) return false;
  // Frames of other origins, while they still exist (silencing drops them): their storage key,
  // and their session storage cleared from inside (a cross-site frame runs in a renderer of its own).
  const foreign = page.frames().filter((frame) => frame !== mainFrame && httpOrigin(frame.url()) && httpOrigin(frame.url()) !== mainOrigin);
  const storageKeys = await Promise.all(
    foreign.map(async (frame) => {
      const [{ storageKey }] = await Promise.all([
        withTimeout(cdp.send('Storage.getStorageKey', { frameId: frameIdOf(frame) }), timeoutMs, 'storage key'),
        withTimeout(frame.evaluate(CLEAR_SESSION_STORAGE), timeoutMs, 'clear frame session storage'),
      ]);
      return storageKey;
    }),
  );
  const silenced = await withTimeout(cdp.send('Runtime.evaluate', { expression: SILENCE_DOCUMENT, returnByValue: true }), timeoutMs, 'silence document');
  // The rest is independent: sent at once, it costs one round trip of waiting instead of one each
  // (the request's slot is held until the page is parked).
  const steps: Promise<unknown>[] = [
    withTimeout(cdp.send('Page.setWebLifecycleState', { state: 'frozen' }), timeoutMs, 'freeze page'),
    // The next document must not see this one in its history (nor keep it alive for back/forward).
    withTimeout(cdp.send('Page.resetNavigationHistory'), timeoutMs, 'reset history'),
    // From a page's session this clears the cookies of its context only (checked), all domains.
    withTimeout(cdp.send('Network.clearBrowserCookies'), timeoutMs, 'clear cookies'),
  ];
  if (mainOrigin) {
    steps.push(withTimeout(cdp.send('Storage.clearDataForOrigin', { origin: mainOrigin, storageTypes: STORAGE_TYPES }), timeoutMs, 'clear origin data'));
    if (silenced.result.value !== true) {
      steps.push(withTimeout(cdp.send('DOMStorage.clear', { storageId: { securityOrigin: mainOrigin, isLocalStorage: false } }), timeoutMs, 'clear session storage'));
    }
  }
  for (const storageKey of new Set(storageKeys)) {
    steps.push(withTimeout(cdp.send('Storage.clearDataForStorageKey', { storageKey, storageTypes: STORAGE_TYPES }), timeoutMs, 'clear frame data'));
  }
  await Promise.all(steps);
  origins.clear();
  return true;
}

/** DevTools' id of a frame; puppeteer keeps it on an internal field (frame ids name OOPIF targets too). */
function frameIdOf(frame: Frame): string {
  return (frame as unknown as { _id: string })._id;
}

/**
 * Clears every timer and animation frame of the document, stops its loads, drops its DOM (and so
 * its frames) and clears its session storage; true when that storage could be cleared (an opaque
 * origin has none to reach).
 */
const SILENCE_DOCUMENT = `(() => {
  const lastTimer = setTimeout(() => {}, 0);
  for (let id = Math.max(0, lastTimer - 1_000_000); id <= lastTimer; id++) { clearTimeout(id); clearInterval(id); }
  const lastFrame = requestAnimationFrame(() => {});
  for (let id = Math.max(0, lastFrame - 100_000); id <= lastFrame; id++) cancelAnimationFrame(id);
  window.stop();
  // The name outlives same-site navigations of the tab: the next document must not read it.
  window.name = '';
  document.documentElement?.remove();
  try { sessionStorage.clear(); return true; } catch { return false; }
})()`;

/** Run in a frame; an opaque origin (a sandboxed frame) has no session storage to reach. */
const CLEAR_SESSION_STORAGE = `(() => { try { sessionStorage.clear(); } catch {} })()`;

/** Lets a parked page run again, right before its next navigation replaces the old document. */
export async function wakePage(target: ReusablePage, timeoutMs: number): Promise<void> {
  await withTimeout(target.cdp.send('Page.setWebLifecycleState', { state: 'active' }), timeoutMs, 'wake page');
}

function httpOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
