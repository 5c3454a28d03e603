import { Injectable } from '@nestjs/common';
import { MAX_SKIPPED_RECORDED, type Sql } from '@trawl/persistence';
import type { CrawlRow } from '../crawl-lifecycle/crawl.types';
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
}

/**
 * URLs found for a crawl — links of its pages, or its sitemaps' URLs — into its frontier: patterns,
 * depth and `max_items` applied, duplicates dropped, in one statement under the crawl's row lock
 * (the caller's transaction holds it). Raises `crawl.itemsFound` by what it kept.
 */
@Injectable()
export class FrontierIntake {
  constructor(private readonly results: PageResultRepository) {}

  async take(sql: Sql, crawl: CrawlRow, pages: PageLinks[]): Promise<IntakeCount> {
    const rules = intakeRulesOf(crawl);
    const collected = collectCandidates(pages, rules);
    let duplicates = collected.duplicates;
    if (collected.candidates.length === 0) return { inserted: 0, duplicates, newWork: false };
    const running = crawl.status === 'running';
    const wantsContent = crawl.outputFormat !== null;
    const wantsLinks = collected.candidates.map((c) => wantsLinksAt(c.depth, rules));
    const queue = wantsLinks.map((links) => running && (links || wantsContent));
    const room = Math.max(0, crawl.maxItems - crawl.itemsFound);
    const result = await this.results.insertLinks(sql, crawl.id, {
      candidates: collected.candidates,
      room,
      firstSeq: crawl.itemsFound + 1,
      wantsLinks,
      wantsContent,
      queue,
    });
    duplicates += collected.candidates.length - result.fresh;
    // Only when max_items left no room (the crawl ends now): the URLs it saw and could not keep.
    if (result.fresh > result.inserted) {
      const room = MAX_SKIPPED_RECORDED - crawl.skippedRecorded;
      crawl.skippedRecorded += await this.results.recordSkipped(sql, crawl.id, 'over_max_items', collected.candidates, room);
    }
    let newWork = running && queue.some(Boolean) && result.inserted > 0;
    if (rules.depth !== null && collected.candidates.length > result.fresh) {
      const openable = collected.candidates.filter((c) => wantsLinksAt(c.depth, rules));
      const reopened = openable.length > 0 ? await this.results.reopenNearer(sql, crawl.id, openable, running) : 0;
      newWork ||= running && reopened > 0;
    }
    crawl.itemsFound += result.inserted;
    return { inserted: result.inserted, duplicates, newWork };
  }
}
