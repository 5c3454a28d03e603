import { EgressError, EgressErrorCode } from '@trawl/egress';
import { BrowserError, BrowserErrorCode } from '../browser';
import { FetchRequestError } from './fetch-request.errors';
import { PolitenessError } from '../politeness';

/**
 * Codes Node's TLS layer gives a certificate it refuses (and a handshake the target botched): the
 * spec's 400 "the target returned an error on its configuration or certificate" (`RESP008`).
 */
const TLS_ERROR_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
  'ERR_SSL_UNSUPPORTED_PROTOCOL',
  'EPROTO',
]);

/** DNS answers that mean "this name does not exist" rather than "the resolver failed just now". */
const NO_SUCH_NAME_CODES = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * Turns why a target could not be fetched (an EgressError of the HTTP engine, a BrowserError of the
 * browser engine) into the worker's answer (Fetch spec §7):
 * refused by the egress policy or the connection failed → `RESP001` (free); the name does not
 * exist → `RESP007` (billed: the spec bills it); a certificate refused → `RESP008`; the body over
 * the tenant's maximum → `RESP005`; out of time → `CTX0002`; a redirect to a URL we cannot fetch →
 * `REQS004`; held back for its host (per-host limits, a 429's pause) → `RESP009`. Anything else is
 * not the target's doing and is rethrown.
 */
export function fetchFailureOf(error: unknown, url: string): FetchRequestError {
  if (error instanceof FetchRequestError) return error;
  if (error instanceof BrowserError) return browserFailureOf(error, url);
  // Spared for its host: busy, as when no capacity is free; the detail says which host and why.
  if (error instanceof PolitenessError) return new FetchRequestError('RESP009', error.message, { cause: error });
  if (!(error instanceof EgressError)) throw error;
  const host = hostOf(url);
  switch (error.code) {
    case EgressErrorCode.InvalidUrl:
      return new FetchRequestError('REQS004', error.message, { cause: error });
    case EgressErrorCode.BlockedAddress:
      // Same words as any unreachable target: the tenant learns nothing of our network.
      return new FetchRequestError('RESP001', `${host} cannot be fetched: it is not a public address.`, { cause: error });
    case EgressErrorCode.DnsFailure:
      return hasCode(error, NO_SUCH_NAME_CODES) || !hasAnyCode(error)
        ? new FetchRequestError('RESP007', `The domain ${host} could not be resolved.`, { billed: true, cause: error })
        : new FetchRequestError('RESP001', `The domain ${host} could not be resolved right now; retry later.`, { cause: error });
    case EgressErrorCode.TooManyRedirects:
      return new FetchRequestError('RESP001', `${host} redirected too many times.`, { cause: error });
    case EgressErrorCode.BodyTooLarge:
      return new FetchRequestError('RESP005', 'The response is larger than the maximum download size.', { cause: error });
    case EgressErrorCode.Timeout:
      return new FetchRequestError('CTX0002', 'The target did not answer within the maximum allowed time.', { cause: error });
    case EgressErrorCode.ConnectFailed:
      if (hasCode(error, TLS_ERROR_CODES)) {
        return new FetchRequestError('RESP008', `The TLS certificate or configuration of ${host} was refused.`, { cause: error });
      }
      return new FetchRequestError('RESP001', `The connection to ${host} failed.`, { cause: error });
  }
}

/** Chromium's own names for a certificate or TLS configuration it refused (`net::ERR_CERT_…`). */
const CHROMIUM_TLS_ERROR = /net::ERR_(CERT_|SSL_|BAD_SSL_)/;

/**
 * The browser engine's failures, the same way: the page's host refused → `RESP001`, not resolving →
 * `RESP007` (billed), a refused certificate → `RESP008`, out of time → `CTX0002`, every browser busy
 * → `RESP009`; a closed or crashed browser is ours → `ERR0001`, which clients retry after 10 to 30 seconds.
 */
function browserFailureOf(error: BrowserError, url: string): FetchRequestError {
  const host = hostOf(url);
  switch (error.code) {
    case BrowserErrorCode.EgressRefused:
      return new FetchRequestError('RESP001', `${host} cannot be fetched: it is not a public address.`, { cause: error });
    case BrowserErrorCode.DnsFailure:
      return new FetchRequestError('RESP007', `The domain ${host} could not be resolved.`, { billed: true, cause: error });
    case BrowserErrorCode.NavigationFailed:
      if (CHROMIUM_TLS_ERROR.test(error.message)) {
        return new FetchRequestError('RESP008', `The TLS certificate or configuration of ${host} was refused.`, { cause: error });
      }
      return new FetchRequestError('RESP001', error.message, { cause: error });
    case BrowserErrorCode.ScreenshotFailed:
      return new FetchRequestError('RESP001', error.message, { cause: error });
    case BrowserErrorCode.TooLarge:
      return new FetchRequestError('RESP005', error.message, { cause: error });
    case BrowserErrorCode.DeadlineExceeded:
      return new FetchRequestError('CTX0002', 'The page did not render within the maximum allowed time.', { cause: error });
    case BrowserErrorCode.PoolBusy:
      // Capacity, not a fault: clients back off and retry (spec RESP009), sooner than after ERR0001.
      return new FetchRequestError('RESP009', 'Every browser is busy; retry with backoff and jitter.', { cause: error });
    case BrowserErrorCode.PoolClosed:
    case BrowserErrorCode.LaunchFailed:
    case BrowserErrorCode.CallTimeout:
    case BrowserErrorCode.BrowserCrashed:
    case BrowserErrorCode.Aborted:
    case BrowserErrorCode.PageUnresponsive:
      return new FetchRequestError('ERR0001', error.message, { cause: error });
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Walks `cause` (and AggregateError members: Happy Eyeballs tries several addresses) for a code. */
function codesOf(error: unknown, depth = 0): string[] {
  if (error === null || typeof error !== 'object' || depth > 8) return [];
  const own = (error as { code?: unknown }).code;
  const codes = typeof own === 'string' ? [own] : [];
  const nested = error instanceof AggregateError ? error.errors : [];
  for (const inner of [(error as { cause?: unknown }).cause, ...nested]) codes.push(...codesOf(inner, depth + 1));
  return codes;
}

function hasCode(error: EgressError, codes: ReadonlySet<string>): boolean {
  return codesOf(error.cause).some((code) => codes.has(code));
}

function hasAnyCode(error: EgressError): boolean {
  return codesOf(error.cause).length > 0;
}
