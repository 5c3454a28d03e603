import { PageOutcome } from '@trawl/contracts';
import { EgressError } from '@trawl/egress';
import { Tier, TIER_CREDITS } from '@trawl/billing';

/** How one page load ended, as billing and crawl coverage see it. */
export interface PageVerdict {
  outcome: PageOutcome;
  /** Short machine reason when the page failed (`http_503`, `timeout`, `blocked_address`…). */
  error?: string;
}

/** Reason given for a failure that is neither an HTTP status nor an egress refusal. */
export const FETCH_ERROR = 'fetch_error';

/**
 * Crawl spec §8 rule 2: a page that answers is fetched; 404 and 410 count as failed but are billed
 * (the site answered, the page is gone); any other status is a failure the tenant does not pay for.
 * 3xx only reaches here when a redirect could not be followed (no `Location`, 304…).
 */
export function verdictOfStatus(status: number): PageVerdict {
  if (status >= 200 && status < 300) return { outcome: 'fetched' };
  if (status === 404 || status === 410) return { outcome: 'failed_billed', error: `http_${status}` };
  return { outcome: 'failed', error: `http_${status}` };
}

/** A page that never answered (refused by egress, timed out, connection failed) is free. */
export function verdictOfError(error: unknown): PageVerdict {
  return { outcome: 'failed', error: error instanceof EgressError ? error.code : FETCH_ERROR };
}

/** Credits a page costs: the tier's price when billed, 0 when it failed. */
export function creditsFor(outcome: PageOutcome, tier: Tier): number {
  switch (outcome) {
    case 'fetched':
    case 'failed_billed':
      return TIER_CREDITS[tier];
    case 'failed':
    case 'skipped':
    case 'disallowed':
      return 0;
  }
}
