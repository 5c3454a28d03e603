import type { BrowserIdentity } from './browser-identity';
import { secChUa } from './brands';
import { acceptLanguage } from './locale';

/** What Chrome 156 accepts for a document it navigates to. */
export const NAVIGATION_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

/** How the request travels: HTTP/1.1 names are title-cased on the wire, HTTP/2 names lower-case. */
export type WireProtocol = 'http/1.1' | 'h2';

/**
 * The headers of a top-level navigation as the identity's Chrome sends them, in Chrome's order, with
 * the caller's own headers in them (a caller's header replaces Chrome's of the same name in its
 * place; the others follow Chrome's). As Chrome does:
 * - client hints (`sec-ch-ua*`) and `sec-fetch-*` go only to secure origins (https), never to http;
 * - `accept-encoding` offers `br` and `zstd` only over https;
 * - HTTP/1.1 title-cases every name but the client hints; `priority` exists only in HTTP/2.
 *
 * @param callerHeaders lower-case names (see `callerRequestHeaders`).
 * @param encodings what the transport can decode, in Chrome's words (`gzip, deflate, br, zstd`);
 *   Chrome's own value when the transport decodes everything it offers.
 * @returns a flat `[name, value, name, value, …]` list (undici's ordered form).
 */
export function navigationHeaders(
  identity: BrowserIdentity,
  target: URL,
  callerHeaders: Readonly<Record<string, string>>,
  protocol: WireProtocol,
  encodings?: string,
): string[] {
  const secure = target.protocol === 'https:';
  const h1 = protocol === 'http/1.1';
  const chrome: [string, string | undefined][] = [];
  if (secure) {
    chrome.push(['sec-ch-ua', secChUa(identity.userAgentData.brands)]);
    chrome.push(['sec-ch-ua-mobile', identity.userAgentData.mobile ? '?1' : '?0']);
    chrome.push(['sec-ch-ua-platform', `"${identity.userAgentData.platform}"`]);
  }
  chrome.push(['upgrade-insecure-requests', '1'], ['user-agent', identity.userAgent], ['accept', NAVIGATION_ACCEPT]);
  if (secure)
    chrome.push(['sec-fetch-site', 'none'], ['sec-fetch-mode', 'navigate'], ['sec-fetch-user', '?1'], ['sec-fetch-dest', 'document']);
  chrome.push(['referer', undefined]);
  chrome.push(['accept-encoding', encodings ?? (secure ? 'gzip, deflate, br, zstd' : 'gzip, deflate')]);
  chrome.push(['accept-language', acceptLanguage(identity.languages)]);
  const callerOnly = Object.keys(callerHeaders).filter((name) => name !== 'cookie' && !chrome.some(([known]) => known === name));
  for (const name of callerOnly) chrome.push([name, callerHeaders[name]]);
  chrome.push(['cookie', undefined]);
  if (!h1) chrome.push(['priority', 'u=0, i']);

  const wire: string[] = [];
  for (const [name, chromeValue] of chrome) {
    const value = callerHeaders[name] ?? chromeValue;
    if (value === undefined) continue;
    wire.push(h1 && !name.startsWith('sec-ch-') ? titleCase(name) : name, value);
  }
  return wire;
}

/** Title-cased names already seen: every HTTP/1.1 request spells the same dozen. Bounded, as callers name their own. */
const TITLE_CASED = new Map<string, string>();
const MAX_TITLE_CASED = 256;

function titleCase(name: string): string {
  let titled = TITLE_CASED.get(name);
  if (titled === undefined) {
    titled = name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
    if (TITLE_CASED.size < MAX_TITLE_CASED) TITLE_CASED.set(name, titled);
  }
  return titled;
}
