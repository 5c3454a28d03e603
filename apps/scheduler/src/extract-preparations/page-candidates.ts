import { Parser } from 'htmlparser2';
import { isSameSite } from '@trawl/egress';
import { boundNesting } from '@trawl/extraction';

/** Paths that are files, not pages a recipe is learned from. */
const NOT_A_PAGE = /\.(?:jpe?g|png|gif|webp|avif|svg|ico|css|js|mjs|json|xml|txt|pdf|zip|gz|mp4|mp3|woff2?|ttf)$/i;

/**
 * The pages a preparation fetches next, best first: the caller's examples, then pages shaped like
 * them (same host, same path template: `/p/123` is like `/p/7`), then the rest of the site found in
 * its sitemaps and links. Pages like the examples are what `extract=auto` will be asked for; a few
 * others (listings, articles) teach the recipe the site's other page types.
 */
export class PageCandidates {
  private readonly queued = new Map<string, number>();
  private readonly seen = new Set<string>();
  private readonly shapes: Set<string>;
  private readonly sections: Set<string>;

  constructor(
    private readonly domain: string,
    examples: readonly string[],
    private readonly allows: (url: URL) => boolean,
  ) {
    const urls = examples.map((e) => new URL(e));
    this.shapes = new Set(urls.map(shapeOf));
    this.sections = new Set(urls.map(sectionOf));
    urls.forEach((url, i) => this.offer(url.href, 100 - i / 100));
  }

  /** Adds a URL found in a sitemap or a page; returns whether it was new and may be fetched. */
  offer(href: string, priority?: number): boolean {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return false;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isSameSite(url.hostname, this.domain)) return false;
    if (NOT_A_PAGE.test(url.pathname) || url.username !== '' || url.password !== '') return false;
    url.hash = '';
    const key = url.href;
    if (this.seen.has(key) || !this.allows(url)) return false;
    this.seen.add(key);
    this.queued.set(key, priority ?? this.priorityOf(url));
    return true;
  }

  /** The best page not fetched yet, taken off the list. */
  next(): string | undefined {
    let best: string | undefined;
    let bestPriority = -Infinity;
    for (const [href, priority] of this.queued) {
      if (priority > bestPriority) [best, bestPriority] = [href, priority];
    }
    if (best !== undefined) this.queued.delete(best);
    return best;
  }

  /** Marks pages fetched before a restart, so they are neither fetched again nor queued. */
  markFetched(href: string): void {
    this.seen.add(href);
    this.queued.delete(href);
  }

  get size(): number {
    return this.queued.size;
  }

  private priorityOf(url: URL): number {
    if (this.shapes.has(shapeOf(url))) return 3;
    if (this.sections.has(sectionOf(url))) return 2;
    // Shallow pages first among the rest: a site's listings and sections before its deep corners.
    return 1 - Math.min(url.pathname.split('/').length, 10) / 100 - (url.search ? 0.05 : 0);
  }
}

/** A URL's path template: host, then each segment with digits and long ids made generic. */
export function shapeOf(url: URL): string {
  const segments = url.pathname
    .split('/')
    .filter(Boolean)
    .map((s) => (/\d/.test(s) && /^[\w-]+(\.\w+)?$/.test(s) ? s.replace(/[a-z-]*\d[\w-]*/gi, '#') : s.length > 40 ? '*' : s));
  return `${hostOf(url)}/${segments.join('/')}${url.search ? '?' : ''}`;
}

function sectionOf(url: URL): string {
  return `${hostOf(url)}/${url.pathname.split('/').filter(Boolean)[0] ?? ''}`;
}

/** `www.` is the same site's pages under another name. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^www\./, '');
}

/** The `href`s of a page's links, resolved against the page's URL (and its `<base>`). */
export function linksOf(html: string, pageUrl: string): string[] {
  const links: string[] = [];
  let base = pageUrl;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'base' && attributes.href) {
          try {
            base = new URL(attributes.href, pageUrl).href;
          } catch {
            // A broken <base> is ignored, as browsers do.
          }
        } else if (name === 'a' && attributes.href && !/^(?:javascript|mailto|tel):/i.test(attributes.href)) {
          try {
            links.push(new URL(attributes.href, base).href);
          } catch {
            // Not a URL: nothing to follow.
          }
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(boundNesting(html));
  return links;
}
