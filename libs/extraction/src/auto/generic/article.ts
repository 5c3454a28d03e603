import { isProbablyReaderable, Readability } from '@mozilla/readability';
import type { Document as ParsedDocument } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import type * as Linkedom from 'linkedom';
import { normaliseValue } from '../values';
import { articleText, type TextNode } from './article-text';
import { readerHtml } from './reader-html';
import { boundNesting } from '@trawl/extraction/bounded-nesting';

/** An article as a reader sees it. */
export interface Article {
  headline: string;
  author?: string;
  /** ISO 8601 date or date-time. */
  date_published?: string;
  /** The article's text: paragraphs separated by blank lines, whitespace collapsed within them. */
  body: string;
}

/** Types of embedded data that say the page is an article (JSON-LD or microdata). */
const ARTICLE_TYPE = /"@type"\s*:\s*\[?\s*"(?:https?:\/\/schema\.org\/)?(?:\w*Article|BlogPosting|LiveBlogPosting|Report)"/;
const ARTICLE_ITEMTYPE = /schema\.org\/(?:\w*Article|BlogPosting|LiveBlogPosting|Report)$/;
/** Shortest body worth answering, in characters: less is a teaser or a cookie notice. */
const MIN_BODY_LENGTH = 200;

/** What the page says about itself before Readability reads it (Readability changes the document). */
export interface ArticleSignals {
  /** Embedded data or `og:type` says the page is an article. */
  declared: boolean;
}

/**
 * The article of a page, read by Mozilla's Readability over a linkedom document: the headline
 * (Readability's title: JSON-LD, OpenGraph, then `<title>` cleaned of the site name), the byline,
 * the published date (ISO 8601), and the body as plain text. Undefined when the page is not an
 * article: neither its markup (an `Article`-like type, `og:type` article) nor Readability's
 * `isProbablyReaderable` says so, or Readability finds no body.
 *
 * @param page decoded page HTML, or the page already parsed by htmlparser2 (entities decoded)
 * @param url the page's final URL
 */
export function articleOf(page: string | ParsedDocument, url: URL): Article | undefined {
  return readArticle(page, url, (document, signals) => signals.declared || isProbablyReaderable(document));
}

/**
 * The article as `articleOf` reads it, when `isArticle` agrees (given the linkedom document before
 * Readability changes it, and what the page declares).
 */
export function readArticle(
  page: string | ParsedDocument,
  url: URL,
  isArticle: (document: Parameters<typeof isProbablyReaderable>[0], signals: ArticleSignals) => boolean,
): Article | undefined {
  const source = typeof page === 'string' ? parseDocument(boundNesting(page), { decodeEntities: true }) : page;
  // linkedom takes about 0.15 s to load: paid by the first article read, not by every process that imports this library.
  const { parseHTML } = require('linkedom') as typeof Linkedom;
  const { document } = parseHTML(readerHtml(source));
  if (!isArticle(document, { declared: declaresArticle(document) })) return undefined;
  const parsed = new Readability<TextNode>(document, { serializer: (node) => node as unknown as TextNode }).parse();
  if (parsed === null || parsed.content === null || parsed.content === undefined) return undefined;
  const body = articleText(parsed.content);
  if (body.length < MIN_BODY_LENGTH) return undefined;
  const article: Article = { headline: collapse(parsed.title ?? ''), body };
  const author = collapse(parsed.byline ?? '');
  if (author !== '') article.author = author.replace(/^by\s+/i, '');
  const published = parsed.publishedTime && normaliseValue('date', parsed.publishedTime, { pageUrl: url, lang: parsed.lang ?? undefined });
  if (published) article.date_published = published.value;
  return article;
}

function declaresArticle(document: Parameters<typeof isProbablyReaderable>[0]): boolean {
  const ogType = document.querySelector('meta[property="og:type"]')?.getAttribute('content');
  if (ogType && /^article$/i.test(ogType.trim())) return true;
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    if (ARTICLE_TYPE.test(script.textContent ?? '')) return true;
  }
  for (const item of document.querySelectorAll('[itemtype]')) {
    if (ARTICLE_ITEMTYPE.test(item.getAttribute('itemtype')?.trim() ?? '')) return true;
  }
  return false;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
