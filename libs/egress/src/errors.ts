import { CodedError } from '@trawl/errors';

/** Why an outbound request was refused or failed. Consumers map each code to "retry" or "give up". */
export enum EgressErrorCode {
  /** Not an http(s) URL, or a redirect `Location` that does not parse. */
  InvalidUrl = 'invalid_url',
  /** The host is, or resolves to, an address the egress policy refuses (loopback, private, metadata…). */
  BlockedAddress = 'blocked_address',
  /** The name does not resolve (NXDOMAIN, no answer, resolver failure). */
  DnsFailure = 'dns_failure',
  TooManyRedirects = 'too_many_redirects',
  /** The body (raw or decompressed) is larger than the caller's cap. */
  BodyTooLarge = 'body_too_large',
  /** The whole request, redirects and body included, did not finish in time. */
  Timeout = 'timeout',
  /** The connection was refused, reset, or its TLS handshake failed. */
  ConnectFailed = 'connect_failed',
}

/**
 * An outbound request refused by the egress policy or failed on the way. The message is safe to
 * show a tenant: it names the host they asked for but never an address we resolved it to (which
 * would map our internal network for them). Underlying errors are kept in `cause` for the logs.
 */
export class EgressError extends CodedError<EgressErrorCode> {}
