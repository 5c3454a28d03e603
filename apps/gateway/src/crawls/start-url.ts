import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  EgressError,
  EgressErrorCode,
  EgressPolicy,
  isIpLiteral,
  MAX_URL_LENGTH,
  normalizeUrl,
  registrableDomain,
  urlKey,
} from '@trawl/egress';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
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
  if (input.length > MAX_URL_LENGTH) {
    throw invalidStartUrl(`The start URL is longer than ${MAX_URL_LENGTH.toLocaleString('en')} characters.`);
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidStartUrl('The start URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidStartUrl('The start URL must use http or https.');
  }
  // WHATWG parsing turns `http://2130706433/` and `0x7f.1` into `127.0.0.1`: checked after parsing.
  if (isIpLiteral(url.hostname)) {
    throw invalidStartUrl('The start URL must name a host, not an IP address.');
  }
  // Our rule (the spec is silent): credentials would be stored with the crawl and sent to workers.
  if (url.username !== '' || url.password !== '') {
    throw invalidStartUrl('The start URL must not carry a user name or password.');
  }
  const normalized = normalizeUrl(url.href);
  if (normalized === null || url.href.length > MAX_URL_LENGTH) {
    throw invalidStartUrl(`The start URL is longer than ${MAX_URL_LENGTH.toLocaleString('en')} characters.`);
  }
  return {
    href: url.href,
    hostname: url.hostname,
    urlKey: createHash('md5').update(urlKey(normalized), 'utf8').digest(),
    scopeDomain: registrableDomain(url.hostname),
  };
}

/**
 * Checks a start URL, including that its host does not resolve to a non-public address. A name that
 * does not resolve (or not in time) is no refusal: the crawl starts and fails `seed_unreachable`,
 * and the worker's egress policy checks the address again when it connects.
 */
@Injectable()
export class StartUrlCheck {
  private readonly resolveTimeoutMs: number;

  constructor(
    private readonly egress: EgressPolicy,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.resolveTimeoutMs = config.START_URL_RESOLVE_TIMEOUT_MS;
  }

  /** @throws CrawlError `invalid_start_url`. */
  async check(input: string): Promise<StartUrl> {
    const { hostname, ...startUrl } = parseStartUrl(input);
    try {
      await withTimeout(this.egress.resolve(hostname), this.resolveTimeoutMs);
    } catch (error) {
      if (error instanceof EgressError && error.code !== EgressErrorCode.DnsFailure) {
        throw invalidStartUrl(`The start URL's host ${hostname} is not a public address.`);
      }
      if (!(error instanceof EgressError) && !(error instanceof ResolveTimeout)) throw error;
    }
    return startUrl;
  }
}

class ResolveTimeout extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ResolveTimeout()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function invalidStartUrl(detail: string): CrawlError {
  return new CrawlError(CrawlErrorCode.InvalidStartUrl, `${detail} Send a public http or https URL.`);
}
