import type { Cookie, Frame, HTTPRequest, HTTPResponse, Page } from 'puppeteer-core';
import { EgressErrorCode } from '@trawl/egress';
import { type FetchOptionsV1, RESPONSE_TYPE_TRAITS, type ScreenshotFormat } from '@trawl/contracts';
import type { BrowserIdentity } from '../identity';
import type { BrowserLease } from './browser-pool';
import { BrowserError, BrowserErrorCode } from './browser.errors';
import { imageSize } from './image-size';
import { leaveParkedUrl } from './page-reuse';
import { runInstructions, type InstructionsReport } from './js-instructions';
import { blockedResourceTypes, interceptRequests, WEBSOCKET_STUB } from './request-interception';
import { toPuppeteerSelector } from './selectors';
import { emulateIdentity } from './identity-emulation';
import { documentHtml } from './quiet-runtime';
import { viewportFor } from './viewport';
import { withTimeout } from './with-timeout';
import { XhrRecorder, type CapturedXhr } from './xhr-recorder';
import type { ProxySessionStats } from '../egress-proxy';

/** The options of a Fetch request that change how a page is rendered. */
export type RenderOptions = Pick<
  FetchOptionsV1,
  | 'js_instructions'
  | 'wait_for'
  | 'wait'
  | 'block_resources'
  | 'json_response'
  | 'screenshot'
  | 'response_type'
  | 'device'
  | 'window_width'
  | 'window_height'
>;

/** What to render: a `FetchRequestV1` as far as the browser is concerned. */
export interface RenderInput {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Headers for the first navigation only (never sub-resources, which may be other origins). */
  headers: Record<string, string>;
  body?: Buffer;
  options: RenderOptions;
  /** Epoch ms: the render gives up (`DeadlineExceeded`) when it passes. */
  deadlineAt: number;
  /** The browser the page presents (user agent, client hints, screen, hardware…). */
  identity: BrowserIdentity;
}

export interface RenderSettings {
  /** Longest wait for the main document (until DOMContentLoaded), in ms. Default: 30,000. */
  navigationTimeoutMs?: number;
  /**
   * Longest a reused page may take to show a main document that has arrived, in ms, before it is
   * taken for hung (`PageUnresponsive`, GET only). Default: 5,000.
   */
  commitTimeoutMs?: number;
  /** Longest wait for the load event after DOMContentLoaded; not an error when exceeded, in ms. Default: 10,000. */
  loadGraceMs?: number;
  /** Longest a single js_instruction (or wait_for) may take, in ms; a `wait` step lasts its own length. Default: 15,000. */
  stepTimeoutMs?: number;
  /** XHR/fetch calls recorded for json_response. Default: 200. */
  maxXhrCalls?: number;
  /** Bytes kept of each XHR/fetch body. Default: 1 MiB. */
  maxXhrBodyBytes?: number;
}

export interface RenderedScreenshot {
  data: Buffer;
  type: ScreenshotFormat;
  /** In pixels, read from the image itself. */
  width: number;
  height: number;
}

/** A rendered page, as the browser saw it; turning it into a FetchReplyV1 is the caller's job. */
export interface RenderedPage {
  /** Status of the last main-document response (after redirects and any navigation the page made). */
  status: number;
  /** URL of that response. */
  finalUrl: string;
  /** URLs that redirected to it, in order, the requested URL first (empty without redirects). */
  redirectChain: string[];
  /** Its response headers, lower-case names (repeated ones joined with `\n` by Chromium). */
  headers: Record<string, string>;
  contentType?: string;
  /** The DOM serialised after scripts, waits and instructions. */
  html: string;
  /**
   * The document's bytes as the server sent them, when it is not HTML (JSON, plain text, XML…):
   * `html` is then Chromium's viewer around it. Undefined for HTML, or when Chromium kept no bytes.
   */
  body?: Buffer;
  /** Cookies of the context at the end (for `Zr-Cookies`). */
  cookies: Cookie[];
  /** Whether `wait_for`'s selector appeared in time (undefined without `wait_for`). */
  waitForFound?: boolean;
  /** With `json_response`: the page's XHR and fetch calls. */
  xhr?: CapturedXhr[];
  /** With `js_instructions`. */
  instructionsReport?: InstructionsReport;
  screenshot?: RenderedScreenshot;
  /** The page printed, with a `response_type` Chromium prints (`pdf`). */
  pdf?: Buffer;
  /** The context's egress counters (bytes, refusals of sub-resources). */
  egress: ProxySessionStats;
}

/** The viewport a page was last given (JSON; `null`: the window's own), so a reused page is not set up again. */
const viewports = new WeakMap<Page, string>();

// Request headers the browser owns; a caller's copy would corrupt the request.
const NAVIGATION_HEADERS_DROPPED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/**
 * Renders `input` in the lease's fresh page: viewport and user agent, interception (first POST,
 * block_resources), navigation, the load event (bounded), `wait_for`, `wait`, `js_instructions`,
 * then the DOM, cookies, XHR calls, screenshot or PDF.
 *
 * @throws BrowserError `EgressRefused` / `DnsFailure` when the page's own host is refused or does not
 *   resolve, `NavigationFailed` when it cannot be loaded, `DeadlineExceeded`, `CallTimeout`,
 *   `ScreenshotFailed`.
 */
export async function renderPage(lease: BrowserLease, input: RenderInput, settings: RenderSettings = {}): Promise<RenderedPage> {
  const { page, egress } = lease;
  const { options, deadlineAt } = input;
  const remaining = (capMs: number) => {
    const left = deadlineAt - Date.now();
    if (left <= 0) throw new BrowserError(BrowserErrorCode.DeadlineExceeded, 'The request deadline passed while rendering');
    return Math.min(capMs, left);
  };
  const call = <T>(work: Promise<T>, what: string, capMs = lease.callTimeoutMs) => withTimeout(work, remaining(capMs), what);
  // A reused page that does not answer before its navigation has hung while parked (see
  // watchCommit): nothing was sent yet, so the request is handed to a fresh page instead of
  // failing, or retiring the browser.
  const unlessHung = <T>(work: Promise<T>): Promise<T> => (lease.reused ? work.catch(asUnresponsive) : work);
  const setUp = <T>(work: Promise<T>, what: string): Promise<T> => unlessHung(call(work, what));

  const viewport = viewportFor(options, input.identity);
  // What a later request of the tenant must not inherit: injected scripts, interception and its
  // listeners, recorded calls, a mobile emulation (switching it back reloads the old document).
  if (options.block_resources?.includes('websocket') || options.json_response || options.js_instructions?.length || viewport?.isMobile) {
    lease.discard();
  }
  await setUp(emulateIdentity(page, input.identity, lease.callTimeoutMs), 'emulate identity');
  // A reused page keeps its viewport: set only what differs (each call is a DevTools round trip).
  // Without a size asked for, a desktop page is as large as its browser window, as a person's is.
  const viewportKey = JSON.stringify(viewport ?? null);
  if ((viewports.get(page) ?? 'null') !== viewportKey) await setUp(page.setViewport(viewport ?? null), 'setViewport');
  viewports.set(page, viewportKey);
  if (options.block_resources?.includes('websocket')) await setUp(page.evaluateOnNewDocument(WEBSOCKET_STUB), 'evaluateOnNewDocument');
  const intercepting = await setUp(
    interceptRequests(
      page,
      {
        method: input.method,
        headers: Object.fromEntries(Object.entries(input.headers).filter(([name]) => !NAVIGATION_HEADERS_DROPPED.has(name.toLowerCase()))),
        body: input.method === 'GET' ? undefined : (input.body ?? Buffer.alloc(0)),
      },
      blockedResourceTypes(options.block_resources ?? []),
    ),
    'setRequestInterception',
  );
  if (intercepting) lease.discard();
  const xhr = options.json_response
    ? new XhrRecorder(page, { maxCalls: settings.maxXhrCalls, maxBodyBytes: settings.maxXhrBodyBytes })
    : undefined;
  const mainDocument = trackMainDocument(page);
  const load = watchLoad(page);
  try {
    if (!(await unlessHung(leaveParkedUrl(page, input.url, remaining(lease.callTimeoutMs))))) {
      lease.discard();
      throw new BrowserError(
        BrowserErrorCode.NavigationFailed,
        'The previous page in this browser tab kept it from loading the page; retry',
      );
    }
    // A parked page's renderer may have hung while it waited (a callback of its old document): its
    // next document arrives but is never shown. Only a GET is handed to a fresh page for it.
    const hung = lease.reused && input.method === 'GET' ? watchCommit(page, settings.commitTimeoutMs ?? 5_000) : undefined;
    try {
      await Promise.race([
        navigate(page, input, egress, remaining(settings.navigationTimeoutMs ?? 30_000), deadlineAt),
        ...(hung ? [hung.failed] : []),
      ]);
    } finally {
      hung?.stop();
    }
    // A slow image must not cost the page: after the grace the DOM is taken as it is.
    await waitForLoad(load.loaded, remaining(settings.loadGraceMs ?? 10_000), deadlineAt);

    let waitForFound: boolean | undefined;
    if (options.wait_for) {
      const timeout = remaining(settings.stepTimeoutMs ?? 15_000);
      waitForFound = await page.waitForSelector(toPuppeteerSelector(options.wait_for), { timeout }).then(
        () => true,
        () => false,
      );
    }
    if (options.wait) await new Promise((resolve) => setTimeout(resolve, remaining(options.wait ?? 0)));
    const instructionsReport = options.js_instructions?.length
      ? await runInstructions(page, options.js_instructions, {
          deadlineAt,
          stepTimeoutMs: settings.stepTimeoutMs ?? 15_000,
          reserveMs: lease.callTimeoutMs,
        })
      : undefined;

    const response = mainDocument.last();
    if (!response) throw new BrowserError(BrowserErrorCode.NavigationFailed, 'The page answered nothing');
    const headers = response.headers();
    refuseIfEgressAnswer(egress.refusalIn(headers));
    const html = await contentOf(page, remaining(lease.callTimeoutMs));
    const cookies = await call(lease.context.cookies(), 'cookies');
    const screenshot = options.screenshot ? await takeScreenshot(page, options.screenshot, remaining(lease.callTimeoutMs * 3)) : undefined;
    const printed = options.response_type !== undefined && RESPONSE_TYPE_TRAITS[options.response_type].printed;
    const pdf = printed ? Buffer.from(await call(page.pdf({ printBackground: true }), 'pdf', lease.callTimeoutMs * 3)) : undefined;
    const body = await withTimeout(mainDocument.rawBody(), remaining(lease.callTimeoutMs), 'document body');
    // Chromium shows a document that is not HTML in a viewer of its own: not a page to keep.
    if (body !== undefined) lease.discard();
    refuseIfOverLimit(lease);
    return {
      status: response.status(),
      finalUrl: response.url(),
      redirectChain: response
        .request()
        .redirectChain()
        .map((request) => request.url()),
      headers,
      contentType: headers['content-type'],
      html,
      body,
      cookies,
      waitForFound,
      xhr: xhr ? await xhr.finish(remaining(lease.callTimeoutMs)) : undefined,
      instructionsReport,
      screenshot,
      pdf,
      egress: egress.stats(),
    };
  } catch (error) {
    // Cut connections surface as whatever failed first (a load error, a lost body): say why.
    if (!(error instanceof BrowserError && error.code === BrowserErrorCode.TooLarge)) refuseIfOverLimit(lease, error);
    throw error;
  } finally {
    mainDocument.stop();
    load.stop();
  }
}

function asUnresponsive(error: unknown): never {
  if (error instanceof BrowserError && error.code === BrowserErrorCode.CallTimeout) {
    throw new BrowserError(BrowserErrorCode.PageUnresponsive, 'The reused browser page stopped answering', { cause: error });
  }
  throw error;
}

/** The page's downloads passed the egress session's limit: its connections were cut, the page is not kept. */
function refuseIfOverLimit(lease: BrowserLease, cause?: unknown): void {
  if (!lease.egress.overLimit) return;
  lease.discard();
  throw new BrowserError(BrowserErrorCode.TooLarge, 'The page downloaded more than the maximum download size.', { cause });
}

interface MainDocument {
  /** The last response of the main frame's document that is not a redirect. */
  last(): HTTPResponse | undefined;
  /** Its bytes as received, when it is not HTML (read at once: Chromium drops them on navigation). */
  rawBody(): Promise<Buffer | undefined>;
  /** Stops listening (the page may serve another request). */
  stop(): void;
}

const HTML_TYPES = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;

function trackMainDocument(page: Page): MainDocument {
  let last: HTTPResponse | undefined;
  let raw: Promise<Buffer | undefined> = Promise.resolve(undefined);
  const onResponse = (response: HTTPResponse) => {
    if (!isMainDocument(page, response)) return;
    last = response;
    const contentType = response.headers()['content-type'] ?? '';
    raw = HTML_TYPES.test(contentType) ? Promise.resolve(undefined) : response.buffer().catch(() => undefined);
    raw.catch(() => undefined);
  };
  page.on('response', onResponse);
  return { last: () => last, rawBody: () => raw, stop: () => void page.off('response', onResponse) };
}

/** A response of the main frame's document, not a redirect (one is followed before anything is shown). */
function isMainDocument(page: Page, response: HTTPResponse): boolean {
  const request = response.request();
  if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return false;
  const status = response.status();
  return !(status >= 300 && status < 400 && response.headers()['location'] !== undefined);
}

async function navigate(
  page: Page,
  input: RenderInput,
  egress: BrowserLease['egress'],
  timeoutMs: number,
  deadlineAt: number,
): Promise<void> {
  try {
    const response = await withTimeout(
      page.goto(input.url, { waitUntil: 'domcontentloaded', timeout: timeoutMs }),
      timeoutMs + 1_000,
      'goto',
    );
    // No response: the URL only moved within the current document (parking makes that impossible for
    // a reused page); there is no new document to wait for.
    if (!response) throw new BrowserError(BrowserErrorCode.NavigationFailed, 'The page answered nothing');
    refuseIfEgressAnswer(egress.refusalIn(response.headers()));
  } catch (error) {
    if (error instanceof BrowserError && error.code !== BrowserErrorCode.CallTimeout) throw error;
    // An https page refused by the proxy shows as a tunnel failure: the session knows why.
    const url = new URL(input.url);
    const failure = egress.failureFor(url.hostname, Number(url.port || (url.protocol === 'https:' ? 443 : 80)));
    if (failure) refuseIfEgressAnswer(failure.code);
    if (Date.now() >= deadlineAt)
      throw new BrowserError(BrowserErrorCode.DeadlineExceeded, 'The request deadline passed while loading the page', { cause: error });
    const reason = /net::ERR_[A-Z_]+/.exec(String((error as Error).message))?.[0] ?? 'the page did not load in time';
    throw new BrowserError(BrowserErrorCode.NavigationFailed, `The page could not be loaded: ${reason}`, { cause: error });
  }
}

function refuseIfEgressAnswer(code: EgressErrorCode | undefined): void {
  switch (code) {
    case undefined:
      return;
    case EgressErrorCode.DnsFailure:
      throw new BrowserError(BrowserErrorCode.DnsFailure, 'The host name of the page does not resolve');
    case EgressErrorCode.BlockedAddress:
    case EgressErrorCode.InvalidUrl:
      throw new BrowserError(BrowserErrorCode.EgressRefused, 'The page is on an address that may not be fetched');
    default:
      throw new BrowserError(BrowserErrorCode.NavigationFailed, 'The page could not be reached');
  }
}

interface CommitWatch {
  /** Rejects with `PageUnresponsive` when the main document arrived and was not shown within the limit. */
  failed: Promise<never>;
  stop(): void;
}

/** Watches the coming navigation: from its main document's response to its commit, at most `timeoutMs`. */
function watchCommit(page: Page, timeoutMs: number): CommitWatch {
  let timer: NodeJS.Timeout | undefined;
  let fail!: (error: BrowserError) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  const onResponse = (response: HTTPResponse) => {
    // Not from a redirect: its target may take long to answer.
    if (timer || !isMainDocument(page, response)) return;
    timer = setTimeout(
      () => fail(new BrowserError(BrowserErrorCode.PageUnresponsive, 'The reused browser page stopped answering')),
      timeoutMs,
    );
  };
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) stop();
  };
  const stop = () => {
    clearTimeout(timer);
    page.off('response', onResponse);
    page.off('framenavigated', onNavigated);
  };
  page.on('response', onResponse);
  page.on('framenavigated', onNavigated);
  return { failed, stop };
}

interface LoadWatch {
  /** Resolves at the first load event of a main-frame document of this navigation. */
  loaded: Promise<void>;
  stop(): void;
}

/**
 * Watches for the load event of the document the coming navigation brings, from the events
 * puppeteer receives anyway: asking the page (an evaluate) costs a DevTools round trip per request.
 * Load events before the navigation's first request (a fresh tab's about:blank) do not count. When
 * a script replaces the document before it loads, the next document's load counts.
 */
function watchLoad(page: Page): LoadWatch {
  let navigating = false;
  let resolve!: () => void;
  const loaded = new Promise<void>((settle) => (resolve = settle));
  const onRequest = (request: HTTPRequest) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) navigating = true;
  };
  // A second sign of the navigation, for one that no request showed (the commit comes before load).
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) navigating = true;
  };
  const onLoad = () => {
    if (navigating) resolve();
  };
  page.on('request', onRequest);
  page.on('framenavigated', onNavigated);
  page.on('load', onLoad);
  return {
    loaded,
    stop: () => {
      page.off('request', onRequest);
      page.off('framenavigated', onNavigated);
      page.off('load', onLoad);
    },
  };
}

/** Waits for `loaded`, at most `timeoutMs` (and never past the deadline); never fails. */
async function waitForLoad(loaded: Promise<void>, timeoutMs: number, deadlineAt: number): Promise<void> {
  const waitMs = Math.max(0, Math.min(timeoutMs, deadlineAt - Date.now()));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([loaded, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
}

/** The page's HTML (as `page.content()`), retried while the page is between documents (a click that navigated). */
async function contentOf(page: Page, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await withTimeout(documentHtml(page.mainFrame()), Math.max(1, deadline - Date.now()), 'content');
    } catch (error) {
      const navigating = /context was destroyed|navigat/i.test(String((error as Error).message));
      if (!navigating || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function takeScreenshot(
  page: Page,
  options: NonNullable<RenderOptions['screenshot']>,
  timeoutMs: number,
): Promise<RenderedScreenshot> {
  const type = options.format;
  const imageOptions = { type, quality: type === 'jpeg' ? (options.quality ?? 80) : undefined } as const;
  let data: Uint8Array;
  if (options.selector) {
    const element = await page.$(toPuppeteerSelector(options.selector)).catch(() => null);
    if (!element) throw new BrowserError(BrowserErrorCode.ScreenshotFailed, `screenshot_selector ${options.selector} matches nothing`);
    data = await withTimeout(element.screenshot(imageOptions), timeoutMs, 'element screenshot');
  } else {
    data = await withTimeout(page.screenshot({ ...imageOptions, fullPage: options.fullpage }), timeoutMs, 'screenshot');
  }
  const buffer = Buffer.from(data);
  const size = imageSize(buffer);
  if (!size) throw new BrowserError(BrowserErrorCode.ScreenshotFailed, 'The screenshot is not a readable image');
  return { data: buffer, type, ...size };
}
