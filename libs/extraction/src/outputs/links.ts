import type { Element } from 'domhandler';
import { collapseWhitespace, textOf } from '../dom';
import type { ParsedPage } from '../parsed-page';

/** One link of the `links` output, or one item of a menu. */
export interface LinkOutput {
  /** Absolute http(s) URL. */
  url: string;
  /** What a reader sees: the link's text, else its `aria-label`, `title` or image `alt`; may be `""`. */
  text: string;
}

/**
 * `links` output: the page's hyperlinks (`a[href]`, `area[href]`) as absolute http(s) URLs,
 * resolved against `<base href>`, deduplicated by URL in order of first appearance (the first
 * non-empty text wins). `mailto:`, `tel:`, `javascript:` links and links to a fragment of the page
 * itself (`#top`) are not links here (addresses and numbers have their own outputs).
 */
export function extractLinks(page: ParsedPage): LinkOutput[] {
  const byUrl = new Map<string, LinkOutput>();
  for (const element of page.elements('a', 'area')) {
    const link = linkOf(page, element);
    if (link === undefined) continue;
    const known = byUrl.get(link.url);
    if (known === undefined) byUrl.set(link.url, link);
    else if (known.text === '') known.text = link.text;
  }
  return [...byUrl.values()];
}

/** `element` as a link, or undefined when its `href` is not an http(s) URL or only a fragment. */
export function linkOf(page: ParsedPage, element: Element): LinkOutput | undefined {
  const href = element.attribs.href;
  if (href === undefined || href.trim().startsWith('#')) return undefined;
  const url = page.resolve(href);
  if (url === undefined) return undefined;
  return { url, text: linkText(page, element) };
}

function linkText(page: ParsedPage, element: Element): string {
  const text = textOf(element);
  if (text !== '') return text;
  const label = element.attribs['aria-label'] ?? element.attribs.title ?? element.attribs.alt;
  if (label !== undefined && label.trim() !== '') return collapseWhitespace(label);
  const img = page.$(element).find('img[alt]').first().attr('alt');
  return collapseWhitespace(img ?? '');
}
