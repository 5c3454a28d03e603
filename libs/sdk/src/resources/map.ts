import type { MapRequest, MapResult } from '../generated/api-types';
import type { Transport } from '../http/transport';

/** Options of a map: everything of `MapRequest` but the URL. */
export type MapOptions = Omit<MapRequest, 'url'>;

/** The Map API: a site's URLs from its sitemaps and page, without crawling it. */
export class MapResource {
  constructor(private readonly transport: Transport) {}

  /**
   * The URLs of the site at `url`. Takes one of the account's concurrency slots like a Fetch
   * request; retried after 429 and 503 (a refused map is not billed).
   *
   * @throws TrawlApiError `invalid_url` or `site_unreachable` (422), `no_capacity` (503) once retries are spent.
   */
  site(url: string, options: MapOptions = {}, call: { signal?: AbortSignal } = {}): Promise<MapResult> {
    return this.transport.json<MapResult>({
      method: 'POST',
      path: '/v1/map',
      json: { url, ...options },
      retrySafe: true,
      gated: true,
      signal: call.signal,
    });
  }
}
