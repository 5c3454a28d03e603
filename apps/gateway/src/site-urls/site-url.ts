import { Inject, Injectable } from '@nestjs/common';
import { EgressError, EgressErrorCode, EgressPolicy, isIpLiteral, MAX_URL_LENGTH, normalizeUrl } from '@trawl/egress';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';

/** A site URL that passed the syntactic checks, and its canonical form. */
export interface SiteUrl {
  url: URL;
  /** `normalizeUrl` of it. */
  normalized: string;
}

/**
 * The syntactic checks of a URL a tenant sends Trawl to (a crawl's start, a map): http/https, at
 * most 2,048 characters, a host name rather than an IP literal, no credentials. Answers the parsed
 * URL, or a sentence for the tenant saying what is wrong.
 */
export function parseSiteUrl(input: string, what: string): SiteUrl | { problem: string } {
  const tooLong = `${what} is longer than ${MAX_URL_LENGTH.toLocaleString('en')} characters.`;
  if (input.length > MAX_URL_LENGTH) return { problem: tooLong };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { problem: `${what} is not a valid absolute URL.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `${what} must use http or https.` };
  // WHATWG parsing turns `http://2130706433/` and `0x7f.1` into `127.0.0.1`: checked after parsing.
  if (isIpLiteral(url.hostname)) return { problem: `${what} must name a host, not an IP address.` };
  // Our rule: credentials would be stored or sent on to workers.
  if (url.username !== '' || url.password !== '') return { problem: `${what} must not carry a user name or password.` };
  const normalized = normalizeUrl(url.href);
  if (normalized === null || url.href.length > MAX_URL_LENGTH) return { problem: tooLong };
  return { url, normalized };
}

/**
 * Whether a host resolves to an address the egress policy refuses, asked before work is accepted
 * so that the tenant hears it at once. A name that does not resolve (or not in time) is not
 * refused here: the work starts and fails on its own terms, and the worker's egress policy checks
 * the address again when it connects.
 */
@Injectable()
export class PublicHostCheck {
  private readonly resolveTimeoutMs: number;

  constructor(
    private readonly egress: EgressPolicy,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.resolveTimeoutMs = config.START_URL_RESOLVE_TIMEOUT_MS;
  }

  async isRefused(hostname: string): Promise<boolean> {
    try {
      await withTimeout(this.egress.resolve(hostname), this.resolveTimeoutMs);
      return false;
    } catch (error) {
      if (error instanceof EgressError) return error.code !== EgressErrorCode.DnsFailure;
      if (error instanceof ResolveTimeout) return false;
      throw error;
    }
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
