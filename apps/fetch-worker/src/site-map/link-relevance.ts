/** What a map's `search` is matched against: a link's URL and its text on the page. */
export interface RankedCandidate {
  url: string;
  title?: string;
}

/** A `search` taken apart once: its words, and the whole as a phrase when it has several. */
export interface SearchQuery {
  terms: string[];
  phrase?: string;
}

const WORD_SPLIT = /[^\p{L}\p{N}]+/u;

/** The words of a search, lower-cased and without repeats; an empty list when it has none. */
export function parseSearch(search: string): SearchQuery {
  const terms = [
    ...new Set(
      search
        .toLowerCase()
        .split(WORD_SPLIT)
        .filter((term) => term !== ''),
    ),
  ];
  return terms.length > 1 ? { terms, phrase: terms.join(' ') } : { terms };
}

// A word in the link's text says most about the page, one in its path next, one in its host or query least.
const TITLE_WEIGHT = 3;
const PATH_WEIGHT = 2;
const REST_WEIGHT = 1;

/**
 * How well a link answers `query`: for each word, the weights of the places it appears in (link
 * text, path, host or query string), plus a bonus when the words appear together in that order.
 * 0 when no word appears anywhere.
 */
export function relevance(candidate: RankedCandidate, query: SearchQuery): number {
  const url = new URL(candidate.url);
  const title = candidate.title?.toLowerCase() ?? '';
  const path = wordsOf(safeDecode(url.pathname));
  const rest = `${url.hostname} ${safeDecode(url.search).toLowerCase()}`;
  let score = 0;
  for (const term of query.terms) {
    if (title.includes(term)) score += TITLE_WEIGHT;
    if (path.includes(term)) score += PATH_WEIGHT;
    if (rest.includes(term)) score += REST_WEIGHT;
  }
  if (score > 0 && query.phrase !== undefined) {
    if (wordsOf(title).includes(query.phrase)) score += TITLE_WEIGHT;
    if (path.includes(query.phrase)) score += PATH_WEIGHT;
  }
  return score;
}

/**
 * The candidates that match `query`, most relevant first; among equals the shallower path first
 * (a section before its pages), then the order they were found in.
 */
export function rankByRelevance<T extends RankedCandidate>(candidates: readonly T[], query: SearchQuery): T[] {
  return candidates
    .map((candidate, order) => ({ candidate, order, score: relevance(candidate, query), depth: pathDepth(candidate.url) }))
    .filter((ranked) => ranked.score > 0)
    .sort((a, b) => b.score - a.score || a.depth - b.depth || a.order - b.order)
    .map((ranked) => ranked.candidate);
}

/** Lower-cased words separated by single spaces (`/Red-Shoes_2` → ` red shoes 2`), so a phrase matches across separators. */
function wordsOf(text: string): string {
  return ` ${text
    .toLowerCase()
    .split(WORD_SPLIT)
    .filter((word) => word !== '')
    .join(' ')} `;
}

function pathDepth(url: string): number {
  return new URL(url).pathname.split('/').filter((segment) => segment !== '').length;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
