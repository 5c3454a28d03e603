export {
  AdaptiveFetcher,
  type AdaptiveFetcherDeps,
  type AdaptiveFetchOptions,
  type AdaptiveResult,
  type AttemptOutcome,
} from './adaptive-fetcher';
export { BlockDetector, type BlockDetectorOptions, type BlockReason, type ObservedPage } from './block-detector';
export { CachedDomainTierMemory, DEFAULT_TIER_MEMORY_TTL_MS, NatsDomainTierMemory, type DomainTierMemory } from './domain-tier-memory';
export { StealthError, StealthErrorCode, type BlockedAttempt } from './stealth.errors';
export { rendersJavaScript, stealthDomainOf, tiersFrom, type FetchTier } from './tiers';
