import { crawlContentSpillStem, crawlContentStem, CrawlPageResultV1, MessagingTopology } from '@trawl/contracts';
import { MessagingConnection, MessagingError, MessagingErrorCode, SpilledBodies } from '@trawl/messaging';

/**
 * Most bytes of spilled page HTML held for one intake transaction (16 MiB): a batch of results
 * whose HTML weighs more is applied in several transactions (a larger page goes alone), so a
 * coordinator holds a bounded amount of kept pages however large the pages are.
 */
export const SPILLED_BYTES_PER_APPLY = 16 * 1024 * 1024;

/**
 * Kept pages' HTML that workers spilled beside their results (the crawl bodies stream): read back
 * before the results are applied, purged once they are committed.
 */
export class SpilledContents {
  private readonly bodies: SpilledBodies;

  constructor(
    messaging: MessagingConnection,
    private readonly topology: MessagingTopology,
  ) {
    this.bodies = new SpilledBodies({ messaging, stream: topology.streams.crawlBodies });
  }

  /**
   * The results with their spilled HTML read back in, one page at a time, as `content` (the ref
   * removed). A result whose HTML is gone (expired, or purged by an earlier apply of the same
   * result) keeps its `content_ref` and has no `content`: the intake marks its content failed if
   * the result still counts, and ignores it if it was applied already.
   *
   * @throws MessagingError `body_store_unavailable` when NATS did not answer: hand the batch back.
   */
  async load(results: CrawlPageResultV1[]): Promise<CrawlPageResultV1[]> {
    const loaded: CrawlPageResultV1[] = [];
    for (const result of results) {
      const ref = result.content_ref;
      if (!ref) {
        loaded.push(result);
        continue;
      }
      const html = await this.bodies.read(crawlContentSpillStem(this.topology, result, ref.id), ref);
      if (html === null) {
        loaded.push(result);
        continue;
      }
      const { content_ref: _read, ...rest } = result;
      loaded.push({ ...rest, content: html.toString('utf8') });
    }
    return loaded;
  }

  /**
   * Removes the spilled HTML of committed results, every spill of their attempt included.
   * Failures are reported, not thrown: the stream's max age removes what is left.
   */
  async purge(results: CrawlPageResultV1[], onFailure: (error: unknown, result: CrawlPageResultV1) => void): Promise<void> {
    for (const result of results) {
      if (!result.content_ref) continue;
      await this.bodies.purge(crawlContentStem(this.topology, result)).catch((error: unknown) => onFailure(error, result));
    }
  }
}

/** The body store did not answer: nothing to blame on the results, try again shortly. */
export function isBodyStoreDown(error: unknown): boolean {
  return error instanceof MessagingError && error.code === MessagingErrorCode.BodyStoreUnavailable;
}
