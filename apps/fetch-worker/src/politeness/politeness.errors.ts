import { CodedError } from '@trawl/errors';
import type { WaitReason } from './host-state';

export enum PolitenessErrorCode {
  /** The host cannot take another load within the time this one may wait: hand it back, or answer busy. */
  HostBusy = 'host_busy',
}

/** A load held back to spare its host; `retryAfterMs` says when to offer it again. */
export class PolitenessError extends CodedError<PolitenessErrorCode> {
  constructor(
    readonly host: string,
    readonly reason: WaitReason,
    readonly retryAfterMs: number,
  ) {
    super(
      PolitenessErrorCode.HostBusy,
      reason === 'backoff'
        ? `${host} asked to slow down (429/503); Trawl holds back from it for ${Math.ceil(retryAfterMs / 1000)} s.`
        : `${host} is at this installation's per-host ${reason === 'rate' ? 'rate' : 'concurrency'} limit; retry in ${Math.ceil(retryAfterMs / 1000)} s.`,
    );
  }
}
