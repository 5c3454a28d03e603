import type { AnyNode, Document, Element } from 'domhandler';
import { isElement, VOID_ELEMENTS } from '@trawl/extraction/dom';

/**
 * Elements Readability removes before it reads, or whose content never reaches an article's text
 * (`articleText` skips them too). Dropping them before linkedom builds its document saves the nodes.
 */
const DROPPED_ELEMENTS: ReadonlySet<string> = new Set([
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'link',
  // Its text is typed by users, and linkedom keeps its entities undecoded.
  'textarea',
]);
/** The attributes Readability and `isProbablyReaderable` read (Readability 0.6); linkedom makes a node of each. */
const KEPT_ATTRIBUTES: ReadonlySet<string> = new Set([
  'id',
  'class',
  'href',
  'src',
  'srcset',
  'poster',
  'rel',
  'itemprop',
  'role',
  'aria-modal',
  'colspan',
  'rowspan',
  'summary',
  'datatable',
  'dir',
  'lang',
  'name',
  'property',
  'content',
  'type',
  'charset',
]);
/**
 * Elements whose children are all blocks (rows, items, cells): whitespace between them is never
 * rendered, and Readability trims or collapses it wherever it measures text.
 */
const STRUCTURAL_CONTAINERS: ReadonlySet<string> = new Set([
  'html',
  'head',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'colgroup',
  'ul',
  'ol',
  'dl',
  'select',
  'optgroup',
]);
const ONLY_WHITESPACE = /^[ \t\n\f\r]*$/;

/**
 * The page's HTML as Readability needs it, re-serialised from the page already parsed: without
 * scripts (JSON-LD stays, Readability reads its metadata), styles, comments, vector graphics and
 * the like, without elements hidden by their markup (Readability drops those unread), without
 * attributes Readability never reads, and without whitespace between table rows or list items.
 *
 * Why: Readability runs over linkedom, whose every node (attributes and text nodes included)
 * costs a WeakMap entry and garbage to collect. A 200 KB page keeps about a quarter of its bytes
 * here; Readability reads the same article from it (177 of the article benchmark's 181 pages
 * alike, the rest without text the page hid) in about four fifths of the time.
 *
 * Iterative, like every walk here: a hostile page may nest 100k deep.
 *
 * @param document the page parsed by htmlparser2 (entities decoded)
 */
export function readerHtml(document: Document): string {
  const out: string[] = ['<!DOCTYPE html>'];
  // A string on the stack is an end tag to write once the element's children are written.
  const stack: Array<AnyNode | string> = [...document.children].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === 'string') {
      out.push(node);
    } else if (node.type === 'text') {
      // Text as written, whitespace included: Readability judges some nodes by `textContent.length`.
      const parent = node.parent;
      if (parent !== null && isElement(parent) && STRUCTURAL_CONTAINERS.has(parent.name) && ONLY_WHITESPACE.test(node.data)) continue;
      const raw = parent !== null && isElement(parent) && parent.name === 'script';
      out.push(raw ? node.data : escapeText(node.data));
    } else if (isElement(node)) {
      if (!isKept(node)) continue;
      out.push(startTag(node));
      if (VOID_ELEMENTS.has(node.name)) continue;
      stack.push(`</${node.name}>`);
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
  return out.join('');
}

function isKept(element: Element): boolean {
  if (DROPPED_ELEMENTS.has(element.name)) return false;
  if (element.name === 'script') return element.attribs.type?.trim().toLowerCase() === 'application/ld+json';
  return isProbablyVisible(element);
}

/** Readability's `_isProbablyVisible`, over attributes: what it finds hidden it removes unread. */
function isProbablyVisible(element: Element): boolean {
  const { style, hidden } = element.attribs;
  if (hidden !== undefined) return false;
  if (style !== undefined && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:;|$|!)/i.test(style)) return false;
  const ariaHidden = element.attribs['aria-hidden'];
  return ariaHidden !== 'true' || (element.attribs.class ?? '').includes('fallback-image');
}

function startTag(element: Element): string {
  // Readability removes an image with no attribute that looks like a source (`data-src`, a value
  // ending `.jpg`) before it scores the page: an image keeps all of its attributes.
  const keepsAll = element.name === 'img';
  let tag = `<${element.name}`;
  for (const name in element.attribs) {
    if (keepsAll || KEPT_ATTRIBUTES.has(name)) tag += ` ${name}="${escapeAttribute(element.attribs[name])}"`;
  }
  return `${tag}>`;
}

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (char) => ESCAPES[char]);
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"]/g, (char) => ESCAPES[char]);
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
