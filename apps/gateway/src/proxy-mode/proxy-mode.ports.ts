import type { TenantContext } from '../auth/authenticated-tenant';
import type { FetchAnswer, FetchCall } from '../fetch/fetch.service';
import type { UsageHeaders } from '../fetch/usage-headers';

/** Turns a presented API key into its tenant; `ApiKeyAuthenticator` is one. */
export interface ProxyAuthenticator {
  /** @throws AuthError AUTH001–AUTH003, AUTH005. */
  authenticate(presented: string | undefined): Promise<TenantContext>;
}

/**
 * The Fetch pipeline a proxied request runs through, unchanged: limits, parameters, account,
 * worker, billing. `FetchService` is one.
 */
export interface ProxyFetcher {
  fetch(call: FetchCall): Promise<FetchAnswer>;
  /** @throws FetchError `REQS005`, with the tenant's concurrency on `usage`. */
  refuseMethod(tenantId: string, method: string | undefined, usage: UsageHeaders): Promise<never>;
}

/** `BLK0001` for proxy clients: the same per-address error rate as the Fetch endpoint's. */
export interface ClientAddressGuard {
  /** When the address is blocked, until when. */
  blockedUntil(address: string): Promise<Date | undefined>;
  /** Counts one answer to the address (buffered); `isError` for refusals the client caused (`isClientError`). */
  record(address: string, isError: boolean): void;
}
