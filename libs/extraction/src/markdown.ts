import type { Cheerio, CheerioAPI } from 'cheerio';
import { load } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import TurndownService from 'turndown';
import { isElement, rawText } from './dom';
import { ExtractionError, ExtractionErrorCode } from './extraction.errors';
import { gfmTables } from './markdown-tables';
import { resolveAnyUrl, resolveHttpUrl } from './urls';
import { boundNesting } from './bounded-nesting';

/** Never content: code, styles, embedded documents and graphics, form controls. */
const NON_CONTENT =
  'script, style, noscript, template, svg, math, canvas, iframe, object, embed, input, select, textarea, button, [hidden], [style*="display:none" i], [style*="display: none" i]';
/**
 * Page chrome left out when the page marks no main content: navigation, sidebars, site header
 * and footer (a `<header>` or `<footer>` inside an article or section belongs to it and stays).
 */
const PAGE_CHROME =
  'nav, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], body > header, body > footer, body > div > header, body > div > footer';

/** The slice of a domino `<li>` the list rule reads. */
interface ListItemNode {
  parentNode: { nodeName: string; getAttribute(name: string): string | null; children: ArrayLike<unknown> } | null;
  nextSibling: unknown;
}

const turndown = createTurndown();

function createTurndown(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    fence: '```',
    emDelimiter: '_',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  service.remove(['script', 'style', 'noscript', 'template'] as never);
  service.addRule('strikethrough', {
    filter: ['del', 's', 'strike'] as never,
    replacement: (content) => (content.trim() === '' ? content : `~~${content}~~`),
  });
  // A link with nothing to click (an icon font, an empty anchor) is noise: `[](url)`.
  service.addRule('emptyLink', {
    filter: (node) =>
      node.nodeName === 'A' &&
      (node as unknown as { textContent: string }).textContent.trim() === '' &&
      !(node as unknown as { querySelector(s: string): unknown }).querySelector('img'),
    replacement: () => '',
  });
  // A <pre> without <code> is still preformatted: turndown would reflow it as a paragraph.
  service.addRule('preformatted', {
    filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName !== 'CODE',
    replacement: (_content, node) => {
      const text = ((node as unknown as { textContent: string }).textContent ?? '').replace(/^\n/, '').trimEnd();
      const fence = text.includes('```') ? '~~~' : '```';
      return `\n\n${fence}\n${text}\n${fence}\n\n`;
    },
  });
  // CommonMark needs only one space after a marker; turndown's default pads to four (`-   a`).
  service.addRule('listItem', {
    filter: 'li' as never,
    replacement: (content, node, options) => {
      const item = node as unknown as ListItemNode;
      const parent = item.parentNode;
      let marker = `${options.bulletListMarker ?? '-'} `;
      if (parent?.nodeName === 'OL') {
        const start = Number.parseInt(parent.getAttribute('start') ?? '1', 10);
        marker = `${(Number.isFinite(start) ? start : 1) + Array.prototype.indexOf.call(parent.children, item)}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/g, `\n${' '.repeat(marker.length)}`);
      return marker + body + (item.nextSibling && !body.endsWith('\n') ? '\n' : '');
    },
  });
  gfmTables(service);
  return service;
}

/**
 * A page as Markdown (`response_type=markdown`), for readers and language models: the main
 * content — the page's `<main>` (or `role=main`), else its only `<article>`, else the body without
 * navigation, sidebars and the site's header and footer — with ATX headings, `-` lists, fenced code
 * (language from `class="language-…"`), `**strong**`, `_em_`, `~~struck~~`, simple tables as GFM
 * tables, links and images with absolute URLs (resolved against `<base href>`), lazy images by
 * their `data-src`. Scripts, styles, templates, SVG, iframes, form controls, elements hidden by
 * their markup, `javascript:` links (their text stays) and `data:` images (their alt text stays)
 * are left out.
 *
 * Parses with htmlparser2 to clean the page, then turndown renders the cleaned HTML; about 1.5 s
 * for a 1 MB page.
 *
 * @param html decoded page HTML
 * @param pageUrl the page's final URL, to make links absolute
 * @throws ExtractionError `invalid_page_url` when `pageUrl` is not an absolute http(s) URL
 */
export function toMarkdown(html: string, pageUrl: string): string {
  const url = URL.parse(pageUrl);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ExtractionError(ExtractionErrorCode.InvalidPageUrl, `Not an absolute http(s) URL: ${pageUrl}`);
  }
  const $ = load(boundNesting(html));
  // Before any selector runs: css-select's descendant search (domutils \`find\`) shifts an array per
  // level, so its cost grows with the square of the nesting depth (100k levels: seconds of CPU).
  flattenDeepElements($, $.root());
  const baseHref = resolveHttpUrl($('base[href]').first().attr('href'), url);
  const base = baseHref === undefined ? url : new URL(baseHref);
  const content = mainContent($);
  content.find(NON_CONTENT).remove();
  absolutiseLinks($, content, base);
  const cleaned = content.html() ?? '';
  return turndown.turndown(cleaned).trim();
}

function mainContent($: CheerioAPI): Cheerio<AnyNode> {
  const main = $('main, [role="main"]').first();
  if (main.length > 0) return main;
  const articles = $('article');
  if (articles.length === 1) return articles;
  const body = $('body');
  const content: Cheerio<AnyNode> = body.length > 0 ? body : $.root();
  content.find(PAGE_CHROME).remove();
  return content;
}

/**
 * Elements nested deeper than this (from the document's root) are rendered as their text:
 * serialising and turndown recurse per level, and a hostile page nesting 100k elements would
 * overflow the stack.
 */
const MAX_MARKDOWN_DEPTH = 200;

function flattenDeepElements($: CheerioAPI, content: Cheerio<AnyNode>): void {
  const stack: Array<{ node: AnyNode; depth: number }> = content.toArray().map((node) => ({ node, depth: 0 }));
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { node, depth } = entry;
    if (!isElement(node) && node.type !== 'root') continue;
    const children = (node as Element).children;
    if (depth >= MAX_MARKDOWN_DEPTH) {
      $(node).text(rawText(node));
      continue;
    }
    for (const child of children) stack.push({ node: child, depth: depth + 1 });
  }
}

function absolutiseLinks($: CheerioAPI, content: Cheerio<AnyNode>, base: URL): void {
  content.find('a[href]').each((_, element: Element) => {
    const href = element.attribs.href.trim();
    if (/^javascript:/i.test(href)) $(element).removeAttr('href');
    else element.attribs.href = resolveAnyUrl(href, base);
  });
  content.find('img').each((_, element: Element) => {
    const attribs = element.attribs;
    const src = resolveHttpUrl(attribs.src, base) ?? resolveHttpUrl(attribs['data-src'], base);
    if (src !== undefined) {
      attribs.src = src;
      return;
    }
    const alt = (attribs.alt ?? '').trim();
    if (alt === '') $(element).remove();
    else $(element).replaceWith(escapeText(alt));
  });
}

/** `text` as HTML source, to put in place of an element. */
function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}
