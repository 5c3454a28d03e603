import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { isFetchTier, type FetchTier } from './tiers';

/** Default life of a remembered tier: 6 hours (`STEALTH_TIER_TTL_MS`). */
export const DEFAULT_TIER_MEMORY_TTL_MS = 6 * 60 * 60_000;

/** Which tier last worked for a domain, shared by every worker. */
export interface DomainTierMemory {
  /** The tier remembered for `domain` (a registrable domain, see `stealthDomainOf`); undefined when none. */
  recall(domain: string): Promise<FetchTier | undefined>;
  /** Remembers `tier` for `domain`, for the memory's TTL from now. */
  remember(domain: string, tier: FetchTier): Promise<void>;
}

// KV keys allow [-/_=.a-zA-Z0-9]; a domain is such a string unless it is an IPv6 literal or odd.
const PLAIN_KEY = /^[a-z0-9._-]+$/;

/**
 * Domain tiers in a NATS KV bucket whose `max_age` is the memory's TTL: an entry lives TTL from
 * its last write, and `AdaptiveFetcher` writes only when the tier changes, so a domain is probed
 * from the cheapest tier again at most once per TTL.
 */
export class NatsDomainTierMemory implements DomainTierMemory {
  private constructor(private readonly kv: KV) {}

  /**
   * Opens (creating if absent) bucket `bucket`, with `replicas` copies on a NATS cluster
   * (`NATS_STREAM_REPLICAS`, default 1) when it creates it.
   *
   * @param ttlMs life of an entry from its last write, in ms. Default: {@link DEFAULT_TIER_MEMORY_TTL_MS}
   *   (6 h). An existing bucket with another max_age is updated to this one (the last worker to boot wins).
   */
  static async open(js: JetStreamClient, bucket: string, ttlMs = DEFAULT_TIER_MEMORY_TTL_MS, replicas = 1): Promise<NatsDomainTierMemory> {
    const kv = await new Kvm(js).create(bucket, { ttl: ttlMs, history: 1, replicas });
    // Kvm.create leaves an existing bucket as it is: a changed STEALTH_TIER_TTL_MS would silently not apply.
    const jsm = await js.jetstreamManager();
    const stream = `KV_${bucket}`;
    const maxAgeNanos = ttlMs * 1_000_000;
    const { config } = await jsm.streams.info(stream);
    if (config.max_age !== maxAgeNanos) await jsm.streams.update(stream, { max_age: maxAgeNanos });
    return new NatsDomainTierMemory(kv);
  }

  async recall(domain: string): Promise<FetchTier | undefined> {
    const entry = await this.kv.get(keyOf(domain));
    if (!entry || entry.operation !== 'PUT') return undefined;
    const tier = entry.string();
    // A value another version wrote that this one does not know is no memory at all.
    return isFetchTier(tier) ? tier : undefined;
  }

  async remember(domain: string, tier: FetchTier): Promise<void> {
    await this.kv.put(keyOf(domain), tier);
  }
}

/**
 * The shared memory read through a short per-process cache: a crawl asks for its domain's tier on
 * every page, and a NATS KV read per page cost the worker more CPU than the page itself (a missing
 * key is an error built with a stack, in nats.js). Concurrent reads of one domain share one read;
 * a failed read is not kept. What this worker remembers it knows at once.
 */
export class CachedDomainTierMemory implements DomainTierMemory {
  private readonly entries = new Map<string, { tier: Promise<FetchTier | undefined>; until: number }>();

  constructor(
    private readonly shared: DomainTierMemory,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  recall(domain: string): Promise<FetchTier | undefined> {
    if (this.ttlMs === 0) return this.shared.recall(domain);
    const cached = this.entries.get(domain);
    if (cached && cached.until > this.now()) return cached.tier;
    const tier = this.shared.recall(domain);
    this.keep(domain, tier);
    tier.catch(() => {
      if (this.entries.get(domain)?.tier === tier) this.entries.delete(domain);
    });
    return tier;
  }

  async remember(domain: string, tier: FetchTier): Promise<void> {
    await this.shared.remember(domain, tier);
    if (this.ttlMs > 0) this.keep(domain, Promise.resolve(tier));
  }

  private keep(domain: string, tier: Promise<FetchTier | undefined>): void {
    this.entries.delete(domain);
    // Oldest first out: a Map iterates in insertion order.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(domain, { tier, until: this.now() + this.ttlMs });
  }
}

function keyOf(domain: string): string {
  const lower = domain.toLowerCase();
  return PLAIN_KEY.test(lower) && !lower.startsWith('.') && !lower.endsWith('.') ? lower : `x.${Buffer.from(lower).toString('base64url')}`;
}
