import { hash } from 'node:crypto';
import { urlKeyOfNormalized } from '@trawl/egress';

/** The parts of a crawl that decide which links it keeps and opens. */
export interface IntakeRules {
  /** Link hops from the start URL; null = unlimited. */
  depth: number | null;
  includePatterns: string[];
  excludePatterns: string[];
  /** False for a crawl of its sitemaps alone (`sitemap: only`): no page is opened for links. */
  followLinks: boolean;
}

export interface LinkCandidate {
  url: string;
  key: Buffer;
  depth: number;
  /** Frontier id of the page it is a link of (first met); null for a URL of the crawl's sitemaps. */
  foundOn: number | null;
}

/**
 * Crawl spec §4: a URL is kept only if it contains one of the include texts (when any) and none of
 * the exclude texts; only kept URLs are opened.
 */
export function passesPatterns(url: string, rules: IntakeRules): boolean {
  if (rules.excludePatterns.some((p) => url.includes(p))) return false;
  return rules.includePatterns.length === 0 || rules.includePatterns.some((p) => url.includes(p));
}

/** A URL at `depth` hops is opened (its links followed) only while it is nearer than `depth`, and never in a crawl that follows no links. */
export function wantsLinksAt(depth: number, rules: IntakeRules): boolean {
  return rules.followLinks && (rules.depth === null || depth < rules.depth);
}

/** The intake rules of a crawl row. */
export function intakeRulesOf(crawl: {
  depth: number | null;
  includePatterns: string[];
  excludePatterns: string[];
  sitemap: 'include' | 'only' | 'skip';
}): IntakeRules {
  return {
    depth: crawl.depth,
    includePatterns: crawl.includePatterns,
    excludePatterns: crawl.excludePatterns,
    followLinks: crawl.sitemap !== 'only',
  };
}

/** The frontier's dedup key of a normalised link: md5 of its `urlKey`. */
export function keyOf(normalizedUrl: string): Buffer {
  return keyOfUrlKey(urlKeyOfNormalized(normalizedUrl));
}

/** One-shot `hash`: a third cheaper than a Hash object per link. */
function keyOfUrlKey(urlKey: string): Buffer {
  return hash('md5', urlKey, 'buffer');
}

export interface PageLinks {
  /** Depth of the page the links were found on. */
  pageDepth: number;
  /** The page's frontier id, or null for the crawl's sitemaps (to say where a URL went). */
  pageId: number | null;
  links: string[];
}

/**
 * Turns the links of a batch of pages of one crawl into candidates for the frontier: patterns
 * applied, depth limit applied, duplicates within the batch dropped (first met wins, so breadth-first
 * order is kept). Returns the candidates and how many links were duplicates within the batch.
 */
export function collectCandidates(pages: PageLinks[], rules: IntakeRules): { candidates: LinkCandidate[]; duplicates: number } {
  // By `urlKey`, the text the frontier's key digests: a link met again in the batch is not digested.
  const seen = new Map<string, LinkCandidate>();
  let duplicates = 0;
  for (const page of pages) {
    const depth = page.pageDepth + 1;
    if (rules.depth !== null && depth > rules.depth) continue;
    for (const url of page.links) {
      if (!passesPatterns(url, rules)) continue;
      const urlKey = urlKeyOfNormalized(url);
      if (seen.has(urlKey)) {
        duplicates++;
        continue;
      }
      seen.set(urlKey, { url, key: keyOfUrlKey(urlKey), depth, foundOn: page.pageId });
    }
  }
  return { candidates: [...seen.values()], duplicates };
}
