import { CodedError } from '@trawl/errors';

/** Why a proxy could not be chosen or configured. */
export enum ProxyErrorCode {
  /** `PROXY_POOLS` does not parse (boot-time; the message never repeats a credential). */
  InvalidPools = 'invalid_pools',
  /** `proxy_country` names a country with no `premium.<country>` pool: the worker answers REQS004. */
  UnknownCountry = 'unknown_country',
  /** The session bindings bucket could not be read or written (NATS down): the worker answers ERR0001 (retry later). */
  SessionStoreFailed = 'session_store_failed',
}

/** A proxy error. Messages are safe to show a tenant and to log: they never hold a proxy URL. */
export class ProxyError extends CodedError<ProxyErrorCode> {}
