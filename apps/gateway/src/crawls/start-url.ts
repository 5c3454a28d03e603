import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { registrableDomain, urlKey } from '@trawl/egress';
import { parseSiteUrl, PublicHostCheck } from '../site-urls/site-url';
import { CrawlError, CrawlErrorCode } from './crawls.errors';

/** A start URL that passed the checks, with what the crawl row and its frontier need. */
export interface StartUrl {
  /** The URL as given, in WHATWG form: the crawl fetches exactly this (query string kept). */
  href: string;
  /** md5 of the dedup key of the normalised URL, as the frontier's `url_key`. */
  urlKey: Buffer;
  /** Registrable domain the crawl stays on. */
  scopeDomain: string;
}

/**
 * The syntactic checks of a start URL (spec-crawl-api §4 and §7 `invalid_start_url`): http/https,
 * at most 2,048 characters, no IP literal host, no credentials.
 * @throws CrawlError `invalid_start_url`.
 */
export function parseStartUrl(input: string): StartUrl & { hostname: string } {
  const parsed = parseSiteUrl(input, 'The start URL');
  if ('problem' in parsed) throw invalidStartUrl(parsed.problem);
  const { url, normalized } = parsed;
  return {
    href: url.href,
    hostname: url.hostname,
    urlKey: createHash('md5').update(urlKey(normalized), 'utf8').digest(),
    scopeDomain: registrableDomain(url.hostname),
  };
}

/**
 * Checks a start URL, including that its host does not resolve to a non-public address. A name that
 * does not resolve (or not in time) is no refusal: the crawl starts and fails `seed_unreachable`.
 */
@Injectable()
export class StartUrlCheck {
  constructor(private readonly hosts: PublicHostCheck) {}

  /** @throws CrawlError `invalid_start_url`. */
  async check(input: string): Promise<StartUrl> {
    const { hostname, ...startUrl } = parseStartUrl(input);
    if (await this.hosts.isRefused(hostname)) throw invalidStartUrl(`The start URL's host ${hostname} is not a public address.`);
    return startUrl;
  }
}

function invalidStartUrl(detail: string): CrawlError {
  return new CrawlError(CrawlErrorCode.InvalidStartUrl, `${detail} Send a public http or https URL.`);
}
