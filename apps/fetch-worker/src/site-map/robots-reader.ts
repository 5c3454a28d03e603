import { EgressError } from '@trawl/egress';
import { parseRobotsTxt, robotsAllowingAll, robotsDisallowingAll, ROBOTS_TXT_MAX_BYTES, type RobotsTxt } from '@trawl/site-maps';
import type { BrowserIdentity } from '../identity';
import type { HttpEngine } from '../page-fetch/http-engine';

/** A site's robots.txt as read: `read` (2xx), `missing` (4xx: everything allowed), `failed` (5xx or no answer). */
export interface RobotsRead {
  state: 'read' | 'missing' | 'failed';
  /** What it says; for `failed`, RFC 9309 §2.3.1.4's "complete disallow" (no sitemaps). */
  robots: RobotsTxt;
  /** For `failed`: the HTTP status or the network failure, for a tenant to read. */
  failure?: string;
}

/**
 * Reads `<origin>/robots.txt` as the identity's browser, through the egress policy, at most
 * `ROBOTS_TXT_MAX_BYTES` of it (the rest is ignored, RFC 9309 §2.5).
 *
 * @throws the signal's reason when `signal` aborts; an error that is not the site's (a bug) as is.
 */
export async function readRobotsTxt(
  http: HttpEngine,
  identity: BrowserIdentity,
  origin: string,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<RobotsRead> {
  let text = '';
  let status = 0;
  try {
    await http.exchange({
      url: new URL('/robots.txt', origin).href,
      method: 'GET',
      identity,
      headers: {},
      // Reading stops at the cap; past it the body is dropped unread, never a failure.
      maxBodyBytes: ROBOTS_TXT_MAX_BYTES * 4,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      readBody: async (chunks, response) => {
        status = response.status;
        if (status >= 400) return;
        const decoder = new TextDecoder('utf-8');
        let bytes = 0;
        for await (const chunk of chunks) {
          text += decoder.decode(chunk.subarray(0, ROBOTS_TXT_MAX_BYTES - bytes), { stream: true });
          bytes += chunk.length;
          if (bytes >= ROBOTS_TXT_MAX_BYTES) return;
        }
      },
    });
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (!(error instanceof EgressError)) throw error;
    return { state: 'failed', robots: robotsDisallowingAll(), failure: error.message };
  }
  if (status >= 500) return { state: 'failed', robots: robotsDisallowingAll(), failure: `HTTP ${status}` };
  if (status >= 400) return { state: 'missing', robots: robotsAllowingAll() };
  return { state: 'read', robots: parseRobotsTxt(text) };
}
