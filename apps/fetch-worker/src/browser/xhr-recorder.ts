import type { HTTPResponse, Page } from 'puppeteer-core';
import { withTimeout } from './with-timeout';

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
 * Records the page's XHR and fetch calls from the moment it is attached. Bodies are read as the
 * responses arrive (Chromium drops them once the page navigates or closes).
 */
export class XhrRecorder {
  private readonly calls: Promise<CapturedXhr>[] = [];
  private droppedCount = 0;
  private readonly maxCalls: number;
  private readonly maxBodyBytes: number;

  constructor(page: Page, limits: XhrRecorderLimits = {}) {
    this.maxCalls = limits.maxCalls ?? 200;
    this.maxBodyBytes = limits.maxBodyBytes ?? 1024 * 1024;
    page.on('response', (response) => this.onResponse(response));
  }

  /** Calls seen beyond `maxCalls`. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** The calls recorded so far, in order of response; waits at most `timeoutMs` for bodies. */
  async finish(timeoutMs: number): Promise<CapturedXhr[]> {
    return withTimeout(Promise.all(this.calls), timeoutMs, 'xhr bodies').catch(() => []);
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
    this.calls.push(
      body.then((text) => ({
        url: response.url(),
        method: request.method(),
        status_code: status,
        headers: response.headers(),
        request_headers: request.headers(),
        body: text,
      })),
    );
  }
}
