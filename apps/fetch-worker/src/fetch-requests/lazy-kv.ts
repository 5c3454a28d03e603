import type { FetchTier } from '../stealth';
import type { DomainTierMemory } from '../stealth';
import type { SessionBindings } from '../proxies';
import type { HostRecord, HostRecords } from '../politeness/host-records';
import type { HostState } from '../politeness/host-state';

/**
 * Opens a shared store on first use, and again after a failed open: a worker whose requests never
 * need it (plain fetches, crawls of tenants whose plan allows only basic) never creates the NATS KV
 * bucket, and a NATS hiccup at that moment is not remembered.
 */
class OnFirstUse<T> {
  private opening?: Promise<T>;

  constructor(private readonly open: () => Promise<T>) {}

  get(): Promise<T> {
    this.opening ??= this.open().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }
}

/** Adaptive stealth's domain memory, opened by the first `mode=auto` request or crawl page. */
export function domainTierMemoryOnFirstUse(open: () => Promise<DomainTierMemory>): DomainTierMemory {
  const store = new OnFirstUse(open);
  return {
    recall: async (domain: string): Promise<FetchTier | undefined> => (await store.get()).recall(domain),
    remember: async (domain: string, tier: FetchTier): Promise<void> => (await store.get()).remember(domain, tier),
  };
}

/** `session_id` bindings, opened by the first request with a session. */
export function sessionBindingsOnFirstUse(open: () => Promise<SessionBindings>): SessionBindings {
  const store = new OnFirstUse(open);
  return {
    bind: async (key: string, candidate: string): Promise<string> => (await store.get()).bind(key, candidate),
    rebind: async (key: string, id: string): Promise<void> => (await store.get()).rebind(key, id),
  };
}

/** The per-host politeness records, opened by the first page load. */
export function hostRecordsOnFirstUse(open: () => Promise<HostRecords>): HostRecords {
  const store = new OnFirstUse(open);
  return {
    read: async (host: string): Promise<HostRecord> => (await store.get()).read(host),
    write: async (host: string, state: HostState, revision: number): Promise<number | undefined> =>
      (await store.get()).write(host, state, revision),
  };
}
