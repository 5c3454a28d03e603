import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { TtlLruCache } from '../auth/ttl-lru-cache';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { AddressOutcomes, ClientAddressesRepository, ErrorRatePolicy } from './client-addresses.repository';

/** Most addresses whose block this replica remembers (least recently seen go first). */
const BLOCK_CACHE_ENTRIES = 100_000;

/**
 * Whether an answer counts as the client's error for `BLK0001`: a 4xx the gateway decided
 * (authentication, parameters, account, verb), but not a 429 (`AUTH006`, `AUTH008`). A 429 tells
 * a client to slow down; a client that retries at its limit as told must not get itself blocked.
 * Answers about the target (its 404, its failures) are never the client's errors.
 */
export function isClientError(status: number, answeredFromTarget: boolean): boolean {
  return !answeredFromTarget && status >= 400 && status < 500 && status !== 429;
}

/**
 * `BLK0001` bookkeeping off the hot path. A replica reads an address's block at most once per
 * `CLIENT_BLOCK_CACHE_MS` (so a block decided on another replica applies here within that time),
 * and counts answers in memory, writing them for every address in one statement each
 * `CLIENT_HEALTH_FLUSH_MS`; the write returns the blocks it decided, which apply here at once.
 * Counts not yet written when a replica dies are lost: the error rate is a judgement, not a record.
 */
@Injectable()
export class ClientAddressHealth implements BeforeApplicationShutdown {
  private readonly blocks: TtlLruCache<string, Date | null>;
  private readonly reading = new Map<string, Promise<Date | undefined>>();
  private pending = new Map<string, AddressOutcomes>();
  private timer?: NodeJS.Timeout;
  private readonly policy: ErrorRatePolicy;
  private readonly flushMs: number;
  private stopped = false;

  constructor(
    private readonly addresses: ClientAddressesRepository,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.blocks = new TtlLruCache({ ttlMs: config.CLIENT_BLOCK_CACHE_MS, maxEntries: BLOCK_CACHE_ENTRIES });
    this.flushMs = config.CLIENT_HEALTH_FLUSH_MS;
    this.policy = {
      windowSeconds: config.CLIENT_ERROR_WINDOW_SECONDS,
      minRequests: config.CLIENT_ERROR_MIN_REQUESTS,
      ratePercent: config.CLIENT_ERROR_RATE_PERCENT,
      blockSeconds: config.CLIENT_BLOCK_SECONDS,
    };
  }

  /** When the address's block ends, or `undefined` when it is not blocked. */
  async blockedUntil(address: string): Promise<Date | undefined> {
    const key = address.toLowerCase();
    const cached = this.blocks.get(key);
    if (cached !== undefined) return cached && cached.getTime() > Date.now() ? cached : undefined;
    // Requests from a new address arriving together share one read.
    let read = this.reading.get(key);
    if (!read) {
      read = this.addresses.blockedUntil(address).finally(() => this.reading.delete(key));
      this.reading.set(key, read);
      void read.then(
        (until) => this.blocks.set(key, until ?? null),
        () => undefined,
      );
    }
    return read;
  }

  /** Counts one answer to the address; see {@link isClientError} for what is an error. */
  record(address: string, isError: boolean): void {
    if (this.stopped) return;
    const key = address.toLowerCase();
    const outcomes = this.pending.get(key) ?? { address, requests: 0, errors: 0 };
    outcomes.requests += 1;
    if (isError) outcomes.errors += 1;
    this.pending.set(key, outcomes);
    if (this.flushMs <= 0) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes the counted answers now. Never rejects (a failed write is logged and its counts dropped). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      for (const { address, blockedUntil } of await this.addresses.record(batch, this.policy)) {
        this.blocks.set(address.toLowerCase(), blockedUntil);
      }
    } catch (error) {
      this.logger.warn({ err: error, addresses: batch.length }, 'could not record client address outcomes');
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.flush();
  }
}
