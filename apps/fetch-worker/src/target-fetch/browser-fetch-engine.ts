import type { BrowserPool, RenderedPage, RenderSettings } from '../browser';
import { renderPage } from '../browser';
import type { FetchEngine, TargetPage, TargetRequest } from './fetch-engine';

/**
 * The rendering tiers (`js_render`, `premium_js_render`): the page in an isolated context of the
 * browser pool (fresh, or a wiped page of the same tenant and route: see page-reuse.ts), its traffic through the worker's egress proxy (and the attempt's upstream proxy).
 * Only the caller's own headers go with the first navigation: Chromium sends its own browser headers.
 */
export class BrowserFetchEngine implements FetchEngine {
  constructor(
    private readonly pool: BrowserPool,
    private readonly settings: RenderSettings = {},
  ) {}

  async fetch(request: TargetRequest): Promise<TargetPage> {
    // Launched on the first rendering request (start() runs once): a worker that only crawls or
    // fetches plain pages never runs Chromium, and stops without waiting for it.
    await this.pool.start();
    const deadlineAt = Date.now() + request.timeoutMs;
    const proxyUrl = request.proxy?.url;
    // A page's context is bound to its route at creation: reuse needs the same tenant and route.
    const reuseKey = `${request.tenantId}\n${proxyUrl ?? 'direct'}`;
    const upstream = proxyUrl ? () => proxyUrl : undefined;
    const rendered = await this.pool.withPage({ deadlineAt, signal: request.signal, upstream, reuseKey }, (lease) =>
      renderPage(
        lease,
        {
          url: request.url,
          method: request.method,
          headers: request.callerHeaders,
          body: request.body,
          options: request.options,
          deadlineAt,
          identity: request.identity,
        },
        this.settings,
      ),
    );
    return toTargetPage(rendered, request);
  }
}

function toTargetPage(rendered: RenderedPage, request: TargetRequest): TargetPage {
  const headers: Record<string, string | string[]> = {};
  // Chromium joins repeated headers with newlines; the answer's Zr- headers take commas.
  for (const [name, value] of Object.entries(rendered.headers)) headers[name] = value.split('\n').join(', ');
  // Zr-Cookies shows the cookies the context holds at the end: those the page's scripts set too.
  delete headers['set-cookie'];
  if (rendered.cookies.length > 0) headers['set-cookie'] = rendered.cookies.map((cookie) => `${cookie.name}=${cookie.value}`);
  const page: TargetPage = {
    tier: request.tier,
    status: rendered.status,
    finalUrl: rendered.finalUrl,
    headers,
    contentType: rendered.contentType,
    // A document that is not HTML keeps its own bytes; an HTML page is its rendered DOM.
    body: rendered.body ?? Buffer.from(rendered.html, 'utf8'),
  };
  if (rendered.body === undefined) page.html = rendered.html;
  if (rendered.xhr) page.xhr = rendered.xhr;
  if (rendered.instructionsReport) page.jsInstructionsReport = rendered.instructionsReport;
  if (rendered.screenshot) page.screenshot = rendered.screenshot;
  if (rendered.pdf) page.pdf = rendered.pdf;
  return page;
}
