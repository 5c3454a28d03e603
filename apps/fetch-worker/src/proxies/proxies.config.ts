import { envInt } from '@trawl/config';
import { z } from 'zod';
import { parseProxyPools } from './proxy-pools';
import { DEFAULT_TIER_MEMORY_TTL_MS } from '../stealth/domain-tier-memory';

/**
 * Fields for the worker's config schema (`fetchWorkerConfigSchema.extend(proxyConfigShape)`), so a
 * bad value fails the boot naming the variable. `PROXY_POOLS` holds credentials: a secret, never
 * logged (log `describeProxyPools(parseProxyPools(…))`).
 */
export const proxyConfigShape = {
  /** Upstream proxy pools (see `parseProxyPools`); default empty: every tier egresses directly. */
  PROXY_POOLS: z
    .string()
    .default('')
    .superRefine((spec, issues) => {
      try {
        parseProxyPools(spec);
      } catch (error) {
        issues.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  /** How long adaptive stealth remembers the tier that worked for a domain, in ms (default 6 h, 1 min – 7 days). */
  STEALTH_TIER_TTL_MS: envInt(DEFAULT_TIER_MEMORY_TTL_MS, 60_000, 7 * 24 * 60 * 60_000),
  /**
   * How long a worker keeps a domain's tier as it read it from the shared memory, in ms (default
   * 5,000; 0 reads the memory on every request). A crawl reads it for every page; another worker's
   * lesson reaches this one at most this late, and costs at most a blocked, unbilled attempt.
   */
  STEALTH_TIER_CACHE_MS: envInt(5_000, 0, 60_000),
};
