import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { isPublicAddress } from './address-ranges';
import { EgressError, EgressErrorCode } from './errors';

/** An address a name resolved to, as handed to `net.connect`. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface EgressPolicyOptions {
  /**
   * Exact hostnames (lowercase) mapped to an address, allowed even when that address is private:
   * how development and tests reach `shop.test` on loopback (`EGRESS_HOST_MAP`, see
   * `parseHostMap`). Nothing else is exempt. Default: empty.
   */
  hostMap?: ReadonlyMap<string, string>;
  /** DNS resolution, injectable for tests. Default: `dns.promises.lookup(hostname, { all: true })`. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/**
 * Decides which hosts an outbound request may reach: only public addresses (see
 * `isPublicAddress`), plus the named hosts of the host map. This checks names and addresses only;
 * `createEgressAgent` applies it at connect time and `safeRequest` on every redirect hop.
 */
export class EgressPolicy {
  private readonly hostMap: ReadonlyMap<string, ResolvedAddress>;
  private readonly lookup: (hostname: string) => Promise<ResolvedAddress[]>;

  constructor(options: EgressPolicyOptions = {}) {
    const entries = [...(options.hostMap ?? [])];
    this.hostMap = new Map(entries.map(([host, address]) => [host.toLowerCase(), toResolved(host, address)]));
    this.lookup = options.lookup ?? systemLookup;
  }

  /** True when a fetch may connect to `ip` (a bare IPv4 or IPv6 literal); false for anything else. */
  isPublicAddress(ip: string): boolean {
    return isPublicAddress(ip);
  }

  /**
   * The address to connect to for `hostname` (as in `URL.hostname`; `[v6]` accepted): the host map
   * entry, else the literal itself, else the first DNS answer.
   *
   * @throws EgressError `BlockedAddress` for a literal that is not public, or a name with ANY
   *   answer that is not public (a name that answers both ways is a DNS rebinding attempt);
   *   `DnsFailure` when the name does not resolve.
   */
  async resolve(hostname: string): Promise<ResolvedAddress> {
    return (await this.resolveAll(hostname))[0];
  }

  /** Like `resolve`, with every answer (all of them public), for connecting with Happy Eyeballs. */
  async resolveAll(hostname: string): Promise<ResolvedAddress[]> {
    const host = unbracket(hostname.toLowerCase());
    const family = isIP(host);
    if (family !== 0) {
      if (!isPublicAddress(host)) {
        throw new EgressError(EgressErrorCode.BlockedAddress, `${hostname} is not a public address`);
      }
      return [{ address: host, family: family === 6 ? 6 : 4 }];
    }
    const mapped = this.hostMap.get(host);
    if (mapped) return [mapped];
    const answers = await this.lookupOrFail(host);
    if (answers.some((answer) => !isPublicAddress(answer.address))) {
      throw new EgressError(EgressErrorCode.BlockedAddress, `${host} resolves to an address that is not public`);
    }
    return answers;
  }

  /**
   * Checks a URL before fetching it: http or https only, and a host that `resolve` accepts.
   *
   * @throws EgressError `InvalidUrl` for another scheme, else as `resolve`.
   */
  async assertUrlAllowed(url: URL): Promise<ResolvedAddress> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new EgressError(EgressErrorCode.InvalidUrl, `Only http and https URLs can be fetched, not ${url.protocol}`);
    }
    return this.resolve(url.hostname);
  }

  private async lookupOrFail(host: string): Promise<ResolvedAddress[]> {
    let answers: ResolvedAddress[];
    try {
      answers = host === '' ? [] : await this.lookup(host);
    } catch (error) {
      throw new EgressError(EgressErrorCode.DnsFailure, `Could not resolve ${host}`, { cause: error });
    }
    if (answers.length === 0) throw new EgressError(EgressErrorCode.DnsFailure, `Could not resolve ${host}`);
    return answers;
  }
}

async function systemLookup(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dns.lookup(hostname, { all: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

function toResolved(host: string, address: string): ResolvedAddress {
  const family = isIP(address);
  if (family === 0) throw new Error(`Egress host map maps ${host} to ${address}, which is not an IP address`);
  return { address, family: family === 6 ? 6 : 4 };
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
