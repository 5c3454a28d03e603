import type { HtmlPage } from '../apply/html-page';
import { isStableStructureToken } from '../apply/structure';
import { pathSegments } from '../apply/url-patterns';

/** Structure overlap (Jaccard) that puts two pages in one group whatever their URLs. */
const SAME_STRUCTURE = 0.75;
/** Structure overlap that suffices when the URLs have the same shape too. */
const SAME_STRUCTURE_AND_URL = 0.5;

/**
 * Groups pages of one domain by template: a page joins the first group whose first page has
 * nearly the same structure tokens, or a similar structure and a URL of the same shape (depth and
 * first segment). Greedy over pages in the given order, so the same pages give the same groups.
 */
export function groupPages(pages: readonly HtmlPage[]): HtmlPage[][] {
  const groups: HtmlPage[][] = [];
  for (const page of pages) {
    const group = groups.find((candidate) => {
      const similarity = jaccard(stableTokensOf(candidate[0]), stableTokensOf(page));
      return similarity >= SAME_STRUCTURE || (similarity >= SAME_STRUCTURE_AND_URL && urlShape(candidate[0].url) === urlShape(page.url));
    });
    if (group === undefined) groups.push([page]);
    else group.push(page);
  }
  return groups;
}

/** Depth and first segment, when it reads as a word (`p`, `product`), of a URL's path. */
export function urlShape(url: URL): string {
  const segments = pathSegments(url);
  const first = segments[0] ?? '';
  return `${segments.length}:${isWordSegment(first) ? first.toLowerCase() : '*'}`;
}

/** A path segment that names a section (`products`, `dp`) rather than one page (`red-shoe-42`). */
export function isWordSegment(segment: string): boolean {
  return /^[A-Za-z]{1,20}$/.test(segment);
}

const stableTokens = new WeakMap<HtmlPage, ReadonlySet<string>>();

/** The page's structure tokens that name elements stably: what a template keeps from page to page. */
export function stableTokensOf(page: HtmlPage): ReadonlySet<string> {
  let tokens = stableTokens.get(page);
  if (tokens === undefined) {
    tokens = new Set([...page.structureTokens].filter(isStableStructureToken));
    stableTokens.set(page, tokens);
  }
  return tokens;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * URL templates covering the group's pages: per path depth, a segment the same on every page and
 * reading as a word stays literal, any other becomes `*`. Sorted, without duplicates.
 */
export function urlPatternsOf(pages: readonly HtmlPage[]): string[] {
  const byDepth = new Map<number, string[][]>();
  for (const page of pages) {
    const segments = pathSegments(page.url);
    const same = byDepth.get(segments.length) ?? [];
    same.push(segments);
    byDepth.set(segments.length, same);
  }
  const patterns = new Set<string>();
  for (const [depth, paths] of byDepth) {
    const template: string[] = [];
    for (let position = 0; position < depth; position++) {
      const first = paths[0][position];
      const constant = paths.every((segments) => segments[position].toLowerCase() === first.toLowerCase());
      template.push(constant && isWordSegment(first) ? first.toLowerCase() : '*');
    }
    patterns.add(`/${template.join('/')}`);
  }
  return [...patterns].sort();
}
