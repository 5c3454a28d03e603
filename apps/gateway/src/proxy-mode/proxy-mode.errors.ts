import { CodedError } from '@trawl/errors';

/**
 * Refusals only proxy mode makes (spec-extract-fetch §5.3, §7). Every other refusal of a proxied
 * request is the Fetch endpoint's own error (`FetchError`, `AuthError`, …), served the same way.
 */
export enum ProxyModeErrorCode {
  /** `Proxy-Authorization` missing, not Basic, not base64, without a colon, or its key not of the key format. */
  InvalidProxyAuthorization = 'AUTH007',
}

export class ProxyModeError extends CodedError<ProxyModeErrorCode> {
  constructor(
    code: ProxyModeErrorCode,
    /** Tells the caller what to do; shown as the problem's `detail`. Never holds the credentials. */
    readonly detail: string,
  ) {
    super(code, detail);
  }
}
