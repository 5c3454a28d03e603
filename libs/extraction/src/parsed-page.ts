import { load, type CheerioAPI } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { isElement } from './dom';
import { ExtractionError, ExtractionErrorCode } from './extraction.errors';
import { PlainTextWriter } from './plain-text-writer';
import { resolveHttpUrl } from './urls';

/**
 * One page parsed once, shared by every transform asked of it (`css_extractor` and several
 * `outputs` on one request parse the HTML once). Parsed with parse5 as a browser would, so the
 * selectors a tenant wrote against the browser's DOM (`table > tbody > tr`, implied elements)
 * match the same nodes here.
 */
export class ParsedPage {
  private text: string | undefined;

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

  /** The page's readable text, as `toPlainText` renders it; computed once on first use. */
  get visibleText(): string {
    if (this.text === undefined) {
      const writer = new PlainTextWriter();
      for (const node of this.$.root()[0].children) walk(node, writer);
      this.text = writer.finish();
    }
    return this.text;
  }
}

function walk(node: AnyNode, writer: PlainTextWriter): void {
  if (node.type === 'text') {
    writer.text(node.data);
  } else if (isElement(node)) {
    writer.open(node.name, node.attribs);
    for (const child of node.children) walk(child, writer);
    writer.close(node.name);
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
  const $ = load(html);
  // The first <base href> applies to the whole document, as in browsers (HTML §4.2.3).
  const baseHref = $('base[href]').first().attr('href');
  const base = resolveHttpUrl(baseHref, url);
  return new ParsedPage($, url, base === undefined ? url : new URL(base));
}
