import { CodedError } from '@trawl/errors';
import type { FetchTier } from './tiers';
import type { BlockReason } from './block-detector';

export enum StealthErrorCode {
  /** Every tier tried was blocked: the worker answers REQS002 (free: no tier succeeded). */
  AllTiersBlocked = 'all_tiers_blocked',
}

/** One blocked attempt of adaptive stealth. */
export interface BlockedAttempt {
  tier: FetchTier;
  reason: BlockReason;
  /** The target's status on that attempt. */
  status: number;
}

export class StealthError<R = unknown> extends CodedError<StealthErrorCode> {
  constructor(
    code: StealthErrorCode,
    message: string,
    /** The blocked attempts, in order. */
    readonly attempts: readonly BlockedAttempt[],
    /** What the last attempt answered (e.g. for `original_status`). */
    readonly lastResult?: R,
  ) {
    super(code, message);
  }
}
