import { load, type CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { isElement } from './dom';
import { ExtractionError, ExtractionErrorCode } from './extraction.errors';
import { PlainTextWriter } from './plain-text-writer';
import { resolveHttpUrl } from './urls';
import { boundNesting } from './bounded-nesting';

/**
 * One page parsed once, shared by every transform asked of it (`css_extractor` and several
 * `outputs` on one request parse the HTML once). Parsed with parse5 as a browser would, so the
 * selectors a tenant wrote against the browser's DOM (`table > tbody > tr`, implied elements)
 * match the same nodes here.
 */
export class ParsedPage {
  private text: string | undefined;
  private index: ElementIndex | undefined;

  constructor(
    /** The cheerio document. */
    readonly $: CheerioAPI,
    /** The page's final URL, after redirects. */
    readonly pageUrl: URL,
    /** Base for relative URLs: the first `<base href>` resolved against `pageUrl`, else `pageUrl`. */
    readonly baseUrl: URL,
  ) {}

  /** `raw` as an absolute http(s) URL against the page's base, or undefined (see `resolveHttpUrl`). */
  resolve(raw: string | undefined): string | undefined {
    return resolveHttpUrl(raw, this.baseUrl);
  }

  /**
   * The page's elements named one of `names` (lower-case tag names; none: all), in document order. The
   * outputs look elements up by tag name; one walk indexes them all, where a selector per output
   * would scan the whole document each time (a dozen scans of a 1 MB page cost more than parsing it).
   */
  elements(...names: string[]): Element[] {
    const index = (this.index ??= indexElements(this.$.root()[0].children));
    if (names.length === 0) return index.all;
    if (names.length === 1) return index.byName.get(names[0]) ?? [];
    const wanted = new Set(names);
    return index.all.filter((element) => wanted.has(element.name));
  }

  /** The page's readable text, as `toPlainText` renders it; computed once on first use. */
  get visibleText(): string {
    if (this.text === undefined) {
      const writer = new PlainTextWriter();
      walk(this.$.root()[0].children, writer);
      this.text = writer.finish();
    }
    return this.text;
  }
}

interface ElementIndex {
  all: Element[];
  byName: Map<string, Element[]>;
}

/** Every element in document order, and by name. Iterative: a hostile page may nest 100k deep. */
function indexElements(roots: readonly AnyNode[]): ElementIndex {
  const all: Element[] = [];
  const byName = new Map<string, Element[]>();
  const stack: AnyNode[] = [...roots].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isElement(node)) continue;
    all.push(node);
    const named = byName.get(node.name);
    if (named === undefined) byName.set(node.name, [node]);
    else named.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return { all, byName };
}

/** Feeds the writer open/text/close events in document order, without recursion. */
function walk(roots: readonly AnyNode[], writer: PlainTextWriter): void {
  // An entry is a node to visit, or an element whose children are done and that must be closed.
  const stack: Array<AnyNode | { close: string }> = [...roots].reverse();
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if ('close' in entry) {
      writer.close(entry.close);
    } else if (entry.type === 'text') {
      writer.text(entry.data);
    } else if (isElement(entry)) {
      writer.open(entry.name, entry.attribs);
      stack.push({ close: entry.name });
      for (let i = entry.children.length - 1; i >= 0; i--) stack.push(entry.children[i]);
    }
  }
}

/**
 * Parses `html` once for the transforms that need a DOM.
 *
 * @param html decoded page HTML
 * @param pageUrl the page's final URL (absolute http(s)), used to resolve relative links
 * @throws ExtractionError `invalid_page_url` when `pageUrl` is not an absolute http(s) URL
 */
export function parsePage(html: string, pageUrl: string): ParsedPage {
  const url = URL.parse(pageUrl);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ExtractionError(ExtractionErrorCode.InvalidPageUrl, `Not an absolute http(s) URL: ${pageUrl}`);
  }
  const $ = load(boundNesting(html));
  // The first <base href> applies to the whole document, as in browsers (HTML §4.2.3).
  const baseHref = $('base[href]').first().attr('href');
  const base = resolveHttpUrl(baseHref, url);
  return new ParsedPage($, url, base === undefined ? url : new URL(base));
}
