import { isIpLiteral, isSameSite, MAX_URL_LENGTH, registrableDomain } from '@trawl/egress';
import { ExtractError, ExtractErrorCode } from './extract.errors';

/** What `POST /v1/extract/prepared-domains` asked for, checked. */
export interface PreparationAsk {
  /** Registrable domain (the unit Extract prepares and serves). */
  domain: string;
  /** The host the caller named, for the forbidden-domains check. */
  hostname: string;
  /** Example URLs in WHATWG form, each on the domain, without duplicates. */
  exampleUrls: string[];
}

/**
 * Turns the body's `domain` (a host, or a URL of it) and `example_urls` into what is prepared:
 * the registrable domain, so that `www.shop.example` and `shop.example` are one preparation, and
 * `alice.github.io` is not `bob.github.io`'s (the private suffixes count, as for crawl scope).
 * @throws ExtractError `invalid_domain`, `invalid_example_url`.
 */
export function parsePreparationAsk(domainInput: string, exampleUrls: readonly string[]): PreparationAsk {
  const hostname = hostnameOf(domainInput.trim());
  const domain = registrableDomain(hostname);
  if (!domain.includes('.')) {
    throw invalidDomain(`${hostname} is not a domain that can be prepared: name a site such as shop.example.`);
  }
  const seen = new Set<string>();
  exampleUrls.forEach((raw, index) => {
    const href = exampleUrlOf(raw, domain, index);
    seen.add(href);
  });
  return { domain, hostname, exampleUrls: [...seen] };
}

function hostnameOf(input: string): string {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`);
  } catch {
    throw invalidDomain('`domain` is not a host name or URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidDomain('`domain` must be a host name or an http(s) URL.');
  const hostname = url.hostname.toLowerCase().replace(/\.+$/, '');
  // WHATWG parsing has already turned `2130706433` and `0x7f.1` into dotted IPv4.
  if (hostname === '' || isIpLiteral(hostname)) throw invalidDomain('`domain` must name a host, not an IP address.');
  return hostname;
}

function exampleUrlOf(raw: string, domain: string, index: number): string {
  const parameter = `example_urls[${index}]`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidExample(parameter, `\`${parameter}\` is not an absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidExample(parameter, `\`${parameter}\` must use http or https.`);
  if (url.username !== '' || url.password !== '')
    throw invalidExample(parameter, `\`${parameter}\` must not carry a user name or password.`);
  if (url.href.length > MAX_URL_LENGTH) throw invalidExample(parameter, `\`${parameter}\` is longer than ${MAX_URL_LENGTH} characters.`);
  if (isIpLiteral(url.hostname) || !isSameSite(url.hostname, domain)) {
    throw invalidExample(parameter, `\`${parameter}\` is not a page of ${domain}: every example must be on the domain asked for.`);
  }
  url.hash = '';
  return url.href;
}

function invalidDomain(detail: string): ExtractError {
  return new ExtractError(ExtractErrorCode.InvalidDomain, detail, { parameter: 'domain' });
}

function invalidExample(parameter: string, detail: string): ExtractError {
  return new ExtractError(ExtractErrorCode.InvalidExampleUrl, detail, { parameter });
}
