import { registrableDomain } from '@trawl/egress';
import { ROBOTS_AGENT_TOKEN, type RobotsRules } from '@trawl/site-maps';
import type { IdentityGenerator } from '../identity';
import type { HttpEngine } from '../page-fetch/http-engine';
import { readRobotsTxt, type RobotsRead } from './robots-reader';

export interface RobotsCacheOptions {
  http: HttpEngine;
  identities: IdentityGenerator;
  /** How long a read (or missing) robots.txt is kept, in ms (default 1 hour; RFC 9309 §2.4 allows a day). */
  ttlMs?: number;
  /** How long a failed read is kept, its complete disallow with it, in ms (default 1 minute). */
  failedTtlMs?: number;
  /** Origins kept (default 10,000); the least recently used goes first. */
  maxOrigins?: number;
  /** Longest wait for a robots.txt, in ms (default 10,000). */
  timeoutMs?: number;
}

/** What robots.txt says to Trawl about one origin, and how it was read. */
export interface OriginRules extends RobotsRules {
  state: RobotsRead['state'];
}

interface Entry {
  expiresAt: number;
  rules: Promise<OriginRules>;
}

/**
 * Robots.txt rules of origins, read once and kept for `ttlMs`, shared by every crawl (and map) on
 * this worker: a robots.txt is the same for everyone who asks. Callers asking for an origin being
 * read wait for the same read. A worker's copy may be up to `ttlMs` older than another's.
 */
export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly failedTtlMs: number;
  private readonly maxOrigins: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: RobotsCacheOptions) {
    this.ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.failedTtlMs = options.failedTtlMs ?? 60 * 1000;
    this.maxOrigins = options.maxOrigins ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /**
   * The rules for `url`'s origin, read as the tenant's browser for the site when not known.
   * @throws the signal's reason when `signal` aborts first (the read goes on for the others waiting).
   */
  rulesFor(url: URL, tenantId: string, signal: AbortSignal): Promise<OriginRules> {
    const origin = url.origin;
    const now = Date.now();
    let entry = this.entries.get(origin);
    if (entry && entry.expiresAt > now) {
      this.entries.delete(origin);
      this.entries.set(origin, entry);
    } else {
      const rules = this.read(origin, url.hostname, tenantId);
      const fresh: Entry = { expiresAt: now + this.ttlMs, rules };
      entry = fresh;
      this.entries.set(origin, fresh);
      if (this.entries.size > this.maxOrigins) this.entries.delete(this.entries.keys().next().value!);
      rules.then(
        (read) => {
          if (read.state === 'failed') fresh.expiresAt = Date.now() + this.failedTtlMs;
        },
        // A read that threw (a bug, not the site) is not kept: the next caller reads again.
        () => {
          if (this.entries.get(origin) === fresh) this.entries.delete(origin);
        },
      );
    }
    return untilAborted(entry.rules, signal);
  }

  /**
   * The items whose URL robots.txt allows, each judged by its own origin's rules (most share one,
   * read once), in their order.
   * @throws the signal's reason when `signal` aborts first.
   */
  async allowed<T>(items: readonly T[], urlOf: (item: T) => string, tenantId: string, signal: AbortSignal): Promise<T[]> {
    const parsed = items.map((item) => new URL(urlOf(item)));
    const origins = [...new Set(parsed.map((url) => url.origin))];
    const rules = new Map(
      await Promise.all(origins.map(async (origin) => [origin, await this.rulesFor(new URL(origin), tenantId, signal)] as const)),
    );
    return items.filter((_, i) => rules.get(parsed[i].origin)!.allows(parsed[i]));
  }

  private async read(origin: string, hostname: string, tenantId: string): Promise<OriginRules> {
    const identity = this.options.identities.identityFor({ tenantId, domain: registrableDomain(hostname), device: 'desktop' });
    // Its own time limit, no caller's signal: others may be waiting for the same read.
    const read = await readRobotsTxt(this.options.http, identity, origin, {
      timeoutMs: this.timeoutMs,
      signal: new AbortController().signal,
    });
    const rules = read.robots.rulesFor(ROBOTS_AGENT_TOKEN);
    return { state: read.state, allows: (target) => rules.allows(target), crawlDelaySeconds: rules.crawlDelaySeconds };
  }
}

/** `work`, or the signal's reason as soon as it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
