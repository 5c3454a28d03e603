import type { HTTPRequest, Page, ResourceType } from 'puppeteer-core';
import type { BlockableResource } from '@trawl/contracts';

/** How the first navigation of the page is sent (a POST/PUT body, the caller's headers). */
export interface FirstNavigation {
  method: 'GET' | 'POST' | 'PUT';
  /** Headers added to the browser's own (the caller's with `custom_headers`, the body's content type). */
  headers: Record<string, string>;
  /** Body of a POST/PUT, as the caller sent it. */
  body?: Buffer;
}

// Chromium's types that the API's `other` covers (beacons, prefetches, CSP reports, …).
const OTHER_TYPES: readonly ResourceType[] = ['other', 'prefetch', 'ping', 'signedexchange', 'cspviolationreport'];

/** Chromium resource types to abort for the API's `block_resources` list (documents never). */
export function blockedResourceTypes(block: readonly BlockableResource[]): Set<ResourceType> {
  const types = new Set<ResourceType>();
  for (const resource of block) {
    if (resource === 'other') OTHER_TYPES.forEach((type) => types.add(type));
    // WebSockets never reach request interception: they are stubbed in the page instead.
    else if (resource !== 'websocket') types.add(resource);
  }
  return types;
}

/** Replaces `WebSocket` in every document so a page cannot open one (Chromium does not intercept them). */
export const WEBSOCKET_STUB = `(() => {
  const Blocked = function WebSocket() { throw new DOMException('WebSocket blocked by block_resources', 'SecurityError'); };
  Object.defineProperty(window, 'WebSocket', { value: Blocked, configurable: false, writable: false });
})();`;

/**
 * Request interception for what only it can do: send the first navigation with another method,
 * body or headers, and abort blocked resource types. It is not a security boundary (the egress
 * proxy is), so nothing else is decided here. Interception stays off when it is not needed: it
 * disables Chromium's cache and slows every request down.
 *
 * @returns whether interception was turned on.
 */
export async function interceptRequests(page: Page, first: FirstNavigation, blocked: ReadonlySet<ResourceType>): Promise<boolean> {
  const rewritesFirst = first.method !== 'GET' || Object.keys(first.headers).length > 0 || first.body !== undefined;
  if (!rewritesFirst && blocked.size === 0) return false;
  let firstSeen = !rewritesFirst;
  await page.setRequestInterception(true);
  page.on('request', (request: HTTPRequest) => {
    const settle = (work: Promise<void>) => work.catch(() => undefined); // the page may be gone already
    if (!firstSeen && request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      firstSeen = true;
      void settle(continueFirst(request, first));
      return;
    }
    if (blocked.has(request.resourceType())) void settle(request.abort('blockedbyclient'));
    else void settle(request.continue());
  });
  return true;
}

/**
 * Continues the first navigation with the caller's method, headers and body. DevTools takes the
 * body as base64 of its bytes, but puppeteer's `continue` takes text and sends its UTF-8, so a body
 * that is not UTF-8 (a Latin-1 form, protobuf, a file) reached the target altered: with a body the
 * request is continued over the page's DevTools session directly (puppeteer leaves a request nobody
 * resolved through it alone).
 */
async function continueFirst(request: HTTPRequest, first: FirstNavigation): Promise<void> {
  const headers = { ...request.headers(), ...first.headers };
  // Puppeteer's own id of the paused request (an internal field, as for frame ids).
  const requestId = (request as unknown as { _interceptionId?: string })._interceptionId;
  if (!first.body?.length) {
    await request.continue({ method: first.method, headers });
    return;
  }
  // Never send altered bytes: without the id (a puppeteer that renamed it) the navigation fails.
  if (requestId === undefined) {
    await request.abort('failed');
    return;
  }
  await request.client.send('Fetch.continueRequest', {
    requestId,
    method: first.method,
    postData: first.body.toString('base64'),
    headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
  });
}
