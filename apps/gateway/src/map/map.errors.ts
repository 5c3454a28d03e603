import { ApiError } from '../problems/api-error';

/** Refusals and failures of the Map API beyond the generic request problems. */
export enum MapErrorCode {
  /** Not a public http/https URL, an IP host, a host that resolves to a non-public address, or over 2,048 characters. */
  InvalidUrl = 'invalid_url',
  /** The operator forbids fetching from this domain (`FETCH_FORBIDDEN_DOMAINS`). */
  ForbiddenDomain = 'forbidden_domain',
  /** Nothing could be read from the site: no sitemap, and the page failed (or was not asked for). */
  SiteUnreachable = 'site_unreachable',
  /** Every worker is busy mapping. */
  NoCapacity = 'no_capacity',
  /** The worker mapping the site was lost, or failed: retryable. */
  MapFailed = 'map_failed',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    map: MapErrorCode;
  }
}

export class MapError extends ApiError<MapErrorCode> {}
