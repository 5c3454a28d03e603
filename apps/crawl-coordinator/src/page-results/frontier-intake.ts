import { Injectable } from '@nestjs/common';
import { MAX_SKIPPED_RECORDED, type Sql } from '@trawl/persistence';
import type { CrawlRow } from '../crawl-lifecycle/crawl.types';
import { KnownFrontierKeys } from './known-frontier-keys';
import { collectCandidates, intakeRulesOf, wantsLinksAt, type PageLinks } from './link-intake';
import { PageResultRepository } from './page-result.repository';

/** What taking in a batch of URLs did to a crawl's frontier. */
export interface IntakeCount {
  /** URLs kept (new items). */
  inserted: number;
  /** URLs dropped as duplicates (within the batch, or already in the crawl). */
  duplicates: number;
  /** Whether pages were queued (or queued again) for dispatch. */
  newWork: boolean;
  /**
   * Keys the crawl's frontier holds once the caller's transaction commits, to hand to
   * `KnownFrontierKeys.remember` then (none when `max_items` left some URLs out).
   */
  inFrontier: Buffer[];
}

/**
 * URLs found for a crawl — links of its pages, or its sitemaps' URLs — into its frontier: patterns,
 * depth and `max_items` applied, duplicates dropped, in one statement under the crawl's row lock
 * (the caller's transaction holds it). Raises `crawl.itemsFound` by what it kept. URLs this replica
 * knows the frontier holds (`KnownFrontierKeys`) are duplicates without asking Postgres.
 */
@Injectable()
export class FrontierIntake {
  constructor(
    private readonly results: PageResultRepository,
    private readonly known: KnownFrontierKeys,
  ) {}

  async take(sql: Sql, crawl: CrawlRow, pages: PageLinks[]): Promise<IntakeCount> {
    const rules = intakeRulesOf(crawl);
    const collected = collectCandidates(pages, rules);
    // Under a depth limit a known URL met nearer the start may open its page again: Postgres decides.
    const usesKnown = rules.depth === null;
    const candidates = usesKnown ? this.known.unknown(crawl.id, collected.candidates) : collected.candidates;
    let duplicates = collected.duplicates + collected.candidates.length - candidates.length;
    if (candidates.length === 0) return { inserted: 0, duplicates, newWork: false, inFrontier: [] };
    const running = crawl.status === 'running';
    const wantsContent = crawl.outputFormat !== null;
    const wantsLinks = candidates.map((c) => wantsLinksAt(c.depth, rules));
    const queue = wantsLinks.map((links) => running && (links || wantsContent));
    const room = Math.max(0, crawl.maxItems - crawl.itemsFound);
    const result = await this.results.insertLinks(sql, crawl.id, {
      candidates,
      room,
      firstSeq: crawl.itemsFound + 1,
      wantsLinks,
      wantsContent,
      queue,
    });
    duplicates += candidates.length - result.fresh;
    // Only when max_items left no room (the crawl ends now): the URLs it saw and could not keep.
    if (result.fresh > result.inserted) {
      const room = MAX_SKIPPED_RECORDED - crawl.skippedRecorded;
      crawl.skippedRecorded += await this.results.recordSkipped(sql, crawl.id, 'over_max_items', candidates, room);
    }
    let newWork = running && queue.some(Boolean) && result.inserted > 0;
    if (rules.depth !== null && candidates.length > result.fresh) {
      const openable = candidates.filter((c) => wantsLinksAt(c.depth, rules));
      const reopened = openable.length > 0 ? await this.results.reopenNearer(sql, crawl.id, openable, running) : 0;
      newWork ||= running && reopened > 0;
    }
    crawl.itemsFound += result.inserted;
    const inFrontier = usesKnown && result.fresh === result.inserted ? candidates.map((c) => c.key) : [];
    return { inserted: result.inserted, duplicates, newWork, inFrontier };
  }
}
