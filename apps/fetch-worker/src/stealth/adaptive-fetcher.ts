import { BlockDetector, type BlockReason, type ObservedPage } from './block-detector';
import type { DomainTierMemory } from './domain-tier-memory';
import { StealthError, StealthErrorCode, type BlockedAttempt } from './stealth.errors';
import { rendersJavaScript, tiersFrom, type FetchTier } from './tiers';

/** What one attempt gives back: the caller's result, and the page the detector judges. */
export interface AttemptOutcome<R> {
  result: R;
  /** The final answer; `rendered` is ignored (it follows the tier). */
  page: Omit<ObservedPage, 'rendered'>;
}

/** Adaptive stealth's answer: the first unblocked result and the tier to bill. */
export interface AdaptiveResult<R> {
  result: R;
  /** The tier that succeeded: the only one billed (earlier attempts are free). */
  tier: FetchTier;
  /** The attempts that were blocked before it, in order. */
  blocked: readonly BlockedAttempt[];
}

export interface AdaptiveFetchOptions {
  /**
   * Lowest tier to try. Default `basic`. `premium` when `proxy_country` is set with `mode=auto`:
   * only the premium pools have countries.
   */
  floor?: FetchTier;
  /**
   * Tiers this installation can really serve, e.g. without a premium pool only `basic` and
   * `js_render` (premium through direct egress would bill 10 credits for nothing). Default: all four.
   */
  available?: readonly FetchTier[];
  /** Stops between attempts (the caller left, or the deadline passed); its reason is thrown. */
  signal?: AbortSignal;
}

export interface AdaptiveFetcherDeps {
  memory: DomainTierMemory;
  detector?: BlockDetector;
  /**
   * Told when the shared memory cannot be read or written (NATS down): adaptive stealth then starts
   * at the floor and forgets nothing it did not write. Default: ignored.
   */
  onMemoryError?: (error: unknown) => void;
  /** Told of each blocked attempt, e.g. for a metric. */
  onBlocked?: (domain: string, attempt: BlockedAttempt) => void;
}

/**
 * `mode=auto` (issue 3 "Adaptive stealth"): tries tiers basic → js_render → premium →
 * premium_js_render, starting at the tier remembered for the domain, and stops at the first answer
 * that is not blocked. Errors of an attempt (connection failed, deadline, unknown country) are not
 * blocks and end the whole request at once.
 */
export class AdaptiveFetcher {
  private readonly detector: BlockDetector;

  constructor(private readonly deps: AdaptiveFetcherDeps) {
    this.detector = deps.detector ?? new BlockDetector();
  }

  /**
   * @param domain the registrable domain (`stealthDomainOf(url)`).
   * @param attempt fetches the page at one tier.
   * @throws StealthError `AllTiersBlocked` (with every blocked attempt and the last result) when no
   *   tier from the start passes; whatever `attempt` throws; `signal`'s reason.
   */
  async fetch<R>(
    domain: string,
    attempt: (tier: FetchTier) => Promise<AttemptOutcome<R>>,
    options: AdaptiveFetchOptions = {},
  ): Promise<AdaptiveResult<R>> {
    const remembered = await this.recall(domain);
    const blocked: BlockedAttempt[] = [];
    let last: R | undefined;
    const available = (tier: FetchTier) => options.available?.includes(tier) ?? true;
    let tiers = tiersFrom(remembered, options.floor).filter(available);
    // A remembered tier the installation no longer offers (its pool was removed) is no memory at all.
    if (tiers.length === 0) tiers = tiersFrom(undefined, options.floor).filter(available);
    if (tiers.length === 0) {
      const message = `${domain}: no available tier at or above ${options.floor ?? 'basic'}`;
      throw new StealthError(StealthErrorCode.AllTiersBlocked, message, []);
    }
    for (const tier of tiers) {
      options.signal?.throwIfAborted();
      const outcome = await attempt(tier);
      const reason: BlockReason | undefined = this.detector.reason({ ...outcome.page, rendered: rendersJavaScript(tier) });
      if (reason === undefined) {
        // Only an escalation teaches something: a floor (proxy_country) is no evidence about the domain.
        if (blocked.length > 0) await this.remember(domain, tier);
        return { result: outcome.result, tier, blocked };
      }
      const record = { tier, reason, status: outcome.page.status };
      blocked.push(record);
      this.deps.onBlocked?.(domain, record);
      last = outcome.result;
    }
    const tried = blocked.map((b) => `${b.tier}: ${b.reason === 'status' ? b.status : b.reason}`).join(', ');
    throw new StealthError(StealthErrorCode.AllTiersBlocked, `${domain} blocked every tier tried (${tried})`, blocked, last);
  }

  private async recall(domain: string): Promise<FetchTier | undefined> {
    try {
      return await this.deps.memory.recall(domain);
    } catch (error) {
      this.deps.onMemoryError?.(error);
      return undefined;
    }
  }

  private async remember(domain: string, tier: FetchTier): Promise<void> {
    try {
      await this.deps.memory.remember(domain, tier);
    } catch (error) {
      this.deps.onMemoryError?.(error);
    }
  }
}
