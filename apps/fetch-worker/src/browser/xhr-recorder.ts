import type { HTTPRequest, HTTPResponse, Page } from 'puppeteer-core';

/** One XHR or fetch call of the page (fetch-details "json_response"). */
export interface CapturedXhr {
  url: string;
  method: string;
  status_code: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  /** Request headers as the page sent them, lower-case names. */
  request_headers: Record<string, string>;
  /** Response body as UTF-8 text, cut at `maxBodyBytes`; empty when it could not be read. */
  body: string;
}

export interface XhrRecorderLimits {
  /** Calls recorded; later ones are counted in `dropped`. Default: 200. */
  maxCalls?: number;
  /** Bytes of each body kept. Default: 1 MiB. */
  maxBodyBytes?: number;
}

/**
 * How long a call still loading when the page is taken, with no announced length (a stream, a
 * chunked long poll: it may never end), may take to finish its body, in ms. One with a
 * `content-length` ends: it is waited for like a finished one.
 */
const UNFINISHED_GRACE_MS = 1_000;

interface RecordedCall {
  request: HTTPRequest;
  call: Omit<CapturedXhr, 'body'>;
  body: Promise<string>;
  /** Whether it has an announced length (or is a redirect, with no body): it will end. */
  bounded: boolean;
}

/**
 * Records the page's XHR and fetch calls from the moment it is attached. Bodies are read as the
 * responses arrive (Chromium drops them once the page navigates or closes). A call whose body is
 * still loading when the page is taken and has no announced length (a stream, a chunked long poll:
 * it may never end) is given a short grace and then reported with an empty body, so it neither
 * holds the answer back nor costs the other calls theirs.
 */
export class XhrRecorder {
  private readonly calls: RecordedCall[] = [];
  /** Requests whose loading finished or failed (their bodies are there to read). */
  private readonly loaded = new WeakSet<HTTPRequest>();
  private droppedCount = 0;
  private readonly maxCalls: number;
  private readonly maxBodyBytes: number;

  constructor(page: Page, limits: XhrRecorderLimits = {}) {
    this.maxCalls = limits.maxCalls ?? 200;
    this.maxBodyBytes = limits.maxBodyBytes ?? 1024 * 1024;
    page.on('response', (response) => this.onResponse(response));
    const loaded = (request: HTTPRequest) => this.loaded.add(request);
    page.on('requestfinished', loaded);
    page.on('requestfailed', loaded);
  }

  /** Calls seen beyond `maxCalls`. */
  get dropped(): number {
    return this.droppedCount;
  }

  /**
   * The calls recorded so far, in order of response. Bodies that will end are waited for at most
   * `timeoutMs` in all, endless-looking ones at most a second; a body not read by then is empty.
   */
  async finish(timeoutMs: number): Promise<CapturedXhr[]> {
    const deadline = Date.now() + timeoutMs;
    const timers: NodeJS.Timeout[] = [];
    const bodyBy = (recorded: RecordedCall) => {
      const ends = recorded.bounded || this.loaded.has(recorded.request);
      const waitMs = Math.max(0, Math.min(deadline - Date.now(), ends ? Infinity : UNFINISHED_GRACE_MS));
      return Promise.race([recorded.body, new Promise<string>((resolve) => timers.push(setTimeout(() => resolve(''), waitMs)))]);
    };
    try {
      return await Promise.all(this.calls.map(async (recorded) => ({ ...recorded.call, body: await bodyBy(recorded) })));
    } finally {
      timers.forEach(clearTimeout);
    }
  }

  private onResponse(response: HTTPResponse): void {
    const request = response.request();
    const type = request.resourceType();
    if (type !== 'xhr' && type !== 'fetch') return;
    if (this.calls.length >= this.maxCalls) {
      this.droppedCount++;
      return;
    }
    const status = response.status();
    const isRedirect = status >= 300 && status < 400;
    const body = isRedirect
      ? Promise.resolve('')
      : response.buffer().then(
          (bytes) => bytes.subarray(0, this.maxBodyBytes).toString('utf8'),
          () => '',
        );
    this.calls.push({
      request,
      call: {
        url: response.url(),
        method: request.method(),
        status_code: status,
        headers: response.headers(),
        request_headers: request.headers(),
      },
      body,
      bounded: isRedirect || response.headers()['content-length'] !== undefined,
    });
  }
}
