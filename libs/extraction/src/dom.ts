import type { AnyNode, Element } from 'domhandler';

/**
 * Helpers over the domhandler trees cheerio builds. They walk nodes directly instead of going
 * through cheerio wrappers: on a 1 MB page the wrappers cost more than the work.
 */

/** domhandler types `<script>` and `<style>` apart from other tags; all three are elements. */
export function isElement(node: AnyNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

/*
 * The element names every reader in this lib reads text by (plain text, Markdown, CSS extractors,
 * the auto extractor through `auto/apply/page-text.ts`), one list for each purpose, so that a page reads the
 * same words whichever output asks. All of them skip `option` (see `NON_TEXT_ELEMENTS`) and break
 * words at `details`, `dialog`, `fieldset`, `hgroup`, `legend`, `menu`, `summary` and `tfoot`, which
 * browsers render as blocks (`<legend>Size</legend>42` reads `Size 42`, not `Size42`). Where they
 * differ they do so by name: only the auto extractor skips controls (`CONTROL_ELEMENTS`).
 */

/**
 * Elements whose content is not text a reader sees: scripts, styles, templates, `noscript` (parse5
 * parses it as raw text, since the page was scripted), embedded vector graphics whose `<title>`
 * and `<text>` are icon names, and a form's choices. `option` is named besides its `select` and
 * `datalist` because the auto extractor also visits elements one by one, where an option would be
 * met without its list and its size `42` read as a value; a stray option outside a list is a
 * broken form, not content.
 */
export const NON_TEXT_ELEMENTS: ReadonlySet<string> = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'head',
  'title',
  'iframe',
  'object',
  'canvas',
  'select',
  'datalist',
  'option',
]);

/**
 * Elements whose text labels a control (`Add to cart`, `Show more`). A reader sees it, so plain
 * text and Markdown keep it; it is never a value of the page's record, so the auto extractor
 * leaves it out (`NON_VALUE_ELEMENTS`).
 */
export const CONTROL_ELEMENTS: ReadonlySet<string> = new Set(['button']);

/** What the auto extractor reads no value from: `NON_TEXT_ELEMENTS` and `CONTROL_ELEMENTS`. */
export const NON_VALUE_ELEMENTS: ReadonlySet<string> = new Set([...NON_TEXT_ELEMENTS, ...CONTROL_ELEMENTS]);

/** Elements without content or end tag (HTML's void elements, with the obsolete ones parsers still know). */
export const VOID_ELEMENTS: ReadonlySet<string> = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'image',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Elements that start a new line of text when rendered (CSS `display: block` and friends). */
export const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'caption',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

const WHITESPACE_RUN = /\s+/g;

/** Collapses every run of whitespace (NBSP included) to one space and trims the ends. */
export function collapseWhitespace(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ').trim();
}

/**
 * Whether an element is hidden by its own markup (`hidden`, inline `display:none`), so that a
 * reader never sees it. Stylesheets are not evaluated: that needs a browser.
 */
export function isHiddenByMarkup(attribs: Readonly<Record<string, string | undefined>>): boolean {
  if (attribs.hidden !== undefined) return true;
  const style = attribs.style;
  return style !== undefined && /display\s*:\s*none/i.test(style);
}

/**
 * The text a reader sees in `node`: text of descendants in document order, a space where a block
 * element starts or ends (so `<p>a</p><p>b</p>` reads `a b`), whitespace collapsed, trimmed. Text
 * of scripts, styles and the like inside is left out; asked for a `<script>` itself, its source is
 * the answer (a `css_extractor` for `script[type="application/ld+json"]` wants exactly that).
 */
export function textOf(node: AnyNode): string {
  if (node.type === 'text') return collapseWhitespace(node.data);
  if (!isElement(node)) return '';
  if (NON_TEXT_ELEMENTS.has(node.name)) return collapseWhitespace(rawText(node));
  const parts: string[] = [];
  appendText(node, parts);
  return collapseWhitespace(parts.join(''));
}

/** Iterative: a hostile page may nest elements deeper than the call stack goes. */
function appendText(element: Element, parts: string[]): void {
  const stack: Array<AnyNode | typeof BLOCK_EDGE> = [...element.children].reverse();
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if (entry === BLOCK_EDGE) {
      parts.push(' ');
    } else if (entry.type === 'text') {
      parts.push(entry.data);
    } else if (isElement(entry) && !NON_TEXT_ELEMENTS.has(entry.name)) {
      const block = BLOCK_ELEMENTS.has(entry.name);
      if (block) {
        parts.push(' ');
        stack.push(BLOCK_EDGE);
      }
      for (let i = entry.children.length - 1; i >= 0; i--) stack.push(entry.children[i]);
    }
  }
}

/** Marks where a block element's children end, in `appendText`'s stack. */
const BLOCK_EDGE = Symbol('block edge');

/** All text under `node`, scripts included, as written. */
export function rawText(node: AnyNode): string {
  if (node.type === 'text') return node.data;
  if (!isElement(node)) return '';
  let text = '';
  const stack: AnyNode[] = [...node.children].reverse();
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if (entry.type === 'text') text += entry.data;
    else if (isElement(entry)) for (let i = entry.children.length - 1; i >= 0; i--) stack.push(entry.children[i]);
  }
  return text;
}

/** The nearest ancestor (or `element` itself) with one of `names`, or undefined. */
export function closest(element: Element, names: ReadonlySet<string>): Element | undefined {
  let current: Element | null = element;
  while (current) {
    if (names.has(current.name)) return current;
    const parent: AnyNode | null = current.parent as AnyNode | null;
    current = parent && isElement(parent) ? parent : null;
  }
  return undefined;
}

/** Child elements of `element` named one of `names`, in order. */
export function childElements(element: Element, names?: ReadonlySet<string>): Element[] {
  const found: Element[] = [];
  for (const child of element.children) {
    if (isElement(child) && (names === undefined || names.has(child.name))) found.push(child);
  }
  return found;
}
