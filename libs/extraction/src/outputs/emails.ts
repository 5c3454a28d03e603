import type { ParsedPage } from '../parsed-page';

/** `local@domain.tld`; anchored, and only ever run on one short token (no backtracking blow-up). */
const EMAIL = /^[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}$/;
/** Separators around an address in running text. */
const TOKEN_SEPARATOR = /[\s,;:<>()[\]{}"'`|\\!?*=]+/;
/** `logo@2x.png` looks like an address; its "TLD" is a file extension. */
const FILE_EXTENSION_TLD = /\.(?:png|jpe?g|gif|webp|svg|avif|ico|css|js|mjs|json|html?|php|aspx?)$/i;
/** Longest address we accept (RFC 5321 path limit). */
const MAX_EMAIL_LENGTH = 254;

/**
 * `emails` output: unique e-mail addresses of the page, in order of first appearance, from
 * `mailto:` links (every address of a multi-address link, without `?subject=…`), from addresses
 * hidden by Cloudflare's e-mail obfuscation (`data-cfemail`, `/cdn-cgi/l/email-protection#…`)
 * and from the page's visible text. Domains are lower-cased; two addresses that differ only in case count once.
 * Strings like `logo@2x.png` are not addresses.
 */
export function extractEmails(page: ParsedPage): string[] {
  const found = new UniqueEmails();
  for (const element of page.elements('a', 'area')) {
    const href = element.attribs.href?.trim();
    if (href === undefined || !/^mailto:/i.test(href)) continue;
    const addresses = href.slice('mailto:'.length).split('?')[0];
    for (const address of safeDecode(addresses).split(',')) found.add(address.trim());
  }
  // Cloudflare's e-mail obfuscation hides addresses from scrapers; browsers' visitors see them.
  for (const element of page.elements()) {
    const encoded = element.attribs['data-cfemail'] ?? cloudflareHrefHex(element.attribs.href);
    if (encoded !== undefined) found.add(decodeCloudflareEmail(encoded));
  }
  const text = page.visibleText;
  // Only tokens holding an "@" are tested: the regex never scans long runs of plain text.
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    found.add(tokenAround(text, at));
  }
  return found.list();
}

function tokenAround(text: string, at: number): string {
  let start = at;
  while (start > 0 && at - start <= MAX_EMAIL_LENGTH && !TOKEN_SEPARATOR.test(text[start - 1])) start--;
  let end = at + 1;
  while (end < text.length && end - at <= MAX_EMAIL_LENGTH && !TOKEN_SEPARATOR.test(text[end])) end++;
  // Sentence punctuation around an address is not part of it.
  return text.slice(start, end).replace(/^[.\-_%+]+|[.\-_%+]+$/g, '');
}

class UniqueEmails {
  private readonly byKey = new Map<string, string>();

  add(candidate: string): void {
    if (candidate.length > MAX_EMAIL_LENGTH || !EMAIL.test(candidate) || FILE_EXTENSION_TLD.test(candidate)) return;
    const at = candidate.lastIndexOf('@');
    const address = candidate.slice(0, at) + candidate.slice(at).toLowerCase();
    const key = address.toLowerCase();
    if (!this.byKey.has(key)) this.byKey.set(key, address);
  }

  list(): string[] {
    return [...this.byKey.values()];
  }
}

const CLOUDFLARE_HREF = /\/cdn-cgi\/l\/email-protection#([0-9a-f]+)$/i;

function cloudflareHrefHex(href: string | undefined): string | undefined {
  return href === undefined ? undefined : CLOUDFLARE_HREF.exec(href.trim())?.[1];
}

/** Cloudflare's scheme: hex bytes, the first is a key XORed into each of the others. */
function decodeCloudflareEmail(hex: string): string {
  if (!/^(?:[0-9a-f]{2}){2,}$/i.test(hex) || hex.length > 2 * 256) return '';
  const key = Number.parseInt(hex.slice(0, 2), 16);
  let address = '';
  for (let i = 2; i < hex.length; i += 2) address += String.fromCharCode(Number.parseInt(hex.slice(i, i + 2), 16) ^ key);
  return address;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
