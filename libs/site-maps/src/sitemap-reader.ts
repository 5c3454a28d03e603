import { Parser } from 'htmlparser2';

/** One `<url>` of a urlset (or a line of a text sitemap, an RSS item, an Atom entry). */
export interface SitemapEntry {
  /** The location as written, trimmed; not yet resolved or checked. */
  loc: string;
  /** `<lastmod>` as written (W3C datetime), when given. */
  lastmod?: string;
}

/** What a sitemap document holds, told as it is read. */
export interface SitemapHandlers {
  /** A page of the site (`<urlset><url>`). */
  onPage(entry: SitemapEntry): void;
  /** Another sitemap, from a `<sitemapindex><sitemap>`. */
  onSitemap(entry: SitemapEntry): void;
}

/** Longest `<loc>` or `<lastmod>` kept, in characters: the protocol caps URLs at 2,048; more is not a URL. */
const MAX_TEXT = 4_096;

/**
 * Reads a sitemap as its bytes arrive (sitemaps.org protocol: XML `urlset` and `sitemapindex`, also
 * a plain-text list of URLs, RSS 2.0 and Atom feeds), calling the handlers for each entry once its
 * element closes. Holds only the entry being read, never the document: a 50 MB sitemap costs what
 * its longest entry does. Namespace prefixes and case of element names are ignored, as crawlers do.
 */
export class SitemapReader {
  private parser?: Parser;
  private kind?: 'xml' | 'text';
  private readonly decoder = new TextDecoder('utf-8');
  private textTail = '';
  private readonly path: string[] = [];
  private loc = '';
  private lastmod = '';
  private capturing?: 'loc' | 'lastmod';
  private atomHref?: string;
  /** The entry being read, and its depth in `path`; only its direct children count (not an image extension's `<image:loc>`). */
  private entry?: { name: string; depth: number };

  constructor(private readonly handlers: SitemapHandlers) {}

  /** Feeds the next bytes of the document. */
  write(chunk: Buffer): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (text === '') return;
    this.kind ??= /^\s*</.test(text) || /^\s*$/.test(text) ? 'xml' : 'text';
    if (this.kind === 'text') this.writeText(text);
    else this.xml().write(text);
  }

  /** Ends the document: the last entry (of a text sitemap without a final newline) is told. */
  end(): void {
    const rest = this.decoder.decode();
    if (this.kind === 'text') {
      this.writeText(rest);
      this.textLine(this.textTail);
      this.textTail = '';
    } else if (this.parser) {
      this.parser.end(rest);
    }
  }

  private writeText(text: string): void {
    const lines = (this.textTail + text).split(/\r\n|\n|\r/);
    this.textTail = lines.pop() ?? '';
    if (this.textTail.length > MAX_TEXT) this.textTail = '';
    for (const line of lines) this.textLine(line);
  }

  private textLine(line: string): void {
    const loc = line.trim();
    if (loc !== '' && loc.length <= MAX_TEXT) this.handlers.onPage({ loc });
  }

  private xml(): Parser {
    this.parser ??= new Parser(
      {
        onopentag: (rawName, attributes) => {
          const name = localName(rawName);
          this.path.push(name);
          if (this.isEntry(name)) {
            this.entry = { name, depth: this.path.length };
            this.loc = '';
            this.lastmod = '';
            this.atomHref = undefined;
          } else if (this.entry && this.path.length === this.entry.depth + 1) {
            const entry = this.entry.name;
            if (name === 'loc' || (name === 'link' && entry === 'item')) this.capturing = 'loc';
            else if (name === 'lastmod' || (name === 'updated' && entry === 'entry')) this.capturing = 'lastmod';
            // Atom: <link href="…"/>, the alternate (default) link is the page.
            if (name === 'link' && entry === 'entry' && attributes.href && (attributes.rel ?? 'alternate') === 'alternate') {
              this.atomHref ??= attributes.href;
            }
          }
        },
        ontext: (text) => {
          if (this.capturing === 'loc' && this.loc.length < MAX_TEXT) this.loc += text;
          else if (this.capturing === 'lastmod' && this.lastmod.length < MAX_TEXT) this.lastmod += text;
        },
        onclosetag: () => {
          this.capturing = undefined;
          if (this.entry && this.path.length === this.entry.depth) {
            this.closeEntry(this.entry.name);
            this.entry = undefined;
          }
          this.path.pop();
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
    return this.parser;
  }

  /** `<url>` in a urlset, `<sitemap>` in an index, `<item>` in RSS, `<entry>` in Atom — directly under the root (RSS: under channel). */
  private isEntry(name: string): boolean {
    const parent = this.path[this.path.length - 2];
    return (
      (name === 'url' && parent === 'urlset') ||
      (name === 'sitemap' && parent === 'sitemapindex') ||
      (name === 'item' && parent === 'channel') ||
      (name === 'entry' && parent === 'feed')
    );
  }

  private closeEntry(name: string): void {
    const loc = (this.loc.trim() || this.atomHref?.trim()) ?? '';
    if (loc === '' || loc.length > MAX_TEXT) return;
    const lastmod = this.lastmod.trim();
    const entry: SitemapEntry = lastmod === '' || lastmod.length > 64 ? { loc } : { loc, lastmod };
    if (name === 'sitemap') this.handlers.onSitemap(entry);
    else this.handlers.onPage(entry);
  }
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return (colon === -1 ? name : name.slice(colon + 1)).toLowerCase();
}
