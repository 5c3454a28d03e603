import type { FetchWorkerErrorCode } from '@trawl/contracts';
import { CodedError } from '@trawl/errors';

/**
 * A Fetch request that ends in one of the worker's error codes (Fetch spec §7). `billed` says
 * whether the tenant pays anyway (the target answered 404, the domain does not resolve); the tier
 * billed is the one that served.
 */
export class FetchRequestError extends CodedError<FetchWorkerErrorCode> {
  constructor(
    code: FetchWorkerErrorCode,
    /** Shown to the tenant as the problem's `detail`: names their URL, never our addresses or secrets. */
    readonly detail: string,
    options: { billed?: boolean; targetStatus?: number; cause?: unknown } = {},
  ) {
    super(code, detail, { cause: options.cause });
    this.billed = options.billed ?? false;
    this.targetStatus = options.targetStatus;
  }

  readonly billed: boolean;
  /** Status the target answered with, when it answered. */
  readonly targetStatus?: number;
}
