import { CodedError } from '@trawl/errors';

/** Why a CAPTCHA could not be passed. The Fetch service maps each code to a worker error code. */
export enum CaptchaErrorCode {
  /** The solver refused the tenant's key (`REQS006`). */
  InvalidKey = 'captcha_invalid_key',
  /** The solver could not solve it, failed, or the token did not get past the challenge (`RESP006`). */
  Unsolved = 'captcha_unsolved',
}

/** A CAPTCHA that stayed in the way. The message is safe to show the tenant (never holds the key). */
export class CaptchaError extends CodedError<CaptchaErrorCode> {}
