import type { BrowserContext, CDPSession, Page } from 'puppeteer-core';
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
}

/**
 * Stops the page's scripts and wipes what it stored: cookies, the storage (session storage too) of
 * every origin its frames and the windows it opened showed, the tab's name and history; those
 * windows are closed.
 */
export async function parkPage(target: ReusablePage, timeoutMs: number): Promise<void> {
  const { cdp, page, context } = target;
  // Origins first: silencing the document drops its frames.
  const pages = await withTimeout(context.pages(), timeoutMs, 'pages');
  const origins = originsShown(pages);
  await withTimeout(cdp.send('Runtime.evaluate', { expression: SILENCE_DOCUMENT }), timeoutMs, 'silence document');
  await withTimeout(cdp.send('Page.setWebLifecycleState', { state: 'frozen' }), timeoutMs, 'freeze page');
  // The next document must not see this one in its history (nor keep it alive for back/forward).
  await withTimeout(cdp.send('Page.resetNavigationHistory'), timeoutMs, 'reset history');
  // Windows the page opened would go on running in the parked context.
  for (const other of pages) {
    if (other !== page) await withTimeout(other.close(), timeoutMs, 'close popup');
  }
  for (const origin of origins) {
    await withTimeout(cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' }), timeoutMs, 'clear origin data');
    // Session storage belongs to the tab, not to the origin's storage: clearDataForOrigin leaves it.
    await withTimeout(cdp.send('DOMStorage.clear', { storageId: { securityOrigin: origin, isLocalStorage: false } }), timeoutMs, 'clear session storage');
  }
  const cookies = await withTimeout(context.cookies(), timeoutMs, 'cookies');
  if (cookies.length > 0) await withTimeout(context.deleteCookie(...cookies), timeoutMs, 'delete cookies');
}

/** Clears every timer and animation frame of the document, stops its loads and drops its DOM (and so its frames). */
const SILENCE_DOCUMENT = `(() => {
  const lastTimer = setTimeout(() => {}, 0);
  for (let id = Math.max(0, lastTimer - 1_000_000); id <= lastTimer; id++) { clearTimeout(id); clearInterval(id); }
  const lastFrame = requestAnimationFrame(() => {});
  for (let id = Math.max(0, lastFrame - 100_000); id <= lastFrame; id++) cancelAnimationFrame(id);
  window.stop();
  // The name outlives same-site navigations of the tab: the next document must not read it.
  window.name = '';
  document.documentElement?.remove();
})()`;

/** Lets a parked page run again, right before its next navigation replaces the old document. */
export async function wakePage(target: ReusablePage, timeoutMs: number): Promise<void> {
  await withTimeout(target.cdp.send('Page.setWebLifecycleState', { state: 'active' }), timeoutMs, 'wake page');
}

/** The http(s) origins of the pages' frames (third-party frames keep storage of their own). */
export function originsShown(pages: readonly Page[]): string[] {
  const origins = new Set<string>();
  for (const frame of pages.flatMap((page) => page.frames())) {
    const origin = httpOrigin(frame.url());
    if (origin) origins.add(origin);
  }
  return [...origins];
}

function httpOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
