import { VOID_ELEMENTS } from './dom';

/**
 * How deep elements may nest in a page Trawl parses: Chromium's HTML parser stops nesting at 512
 * too (it makes deeper elements siblings), so a rendered page never holds more.
 */
export const MAX_ELEMENT_DEPTH = 512;

/**
 * Pages with at most this many start tags are returned as they are: nested all the way down they
 * cost parse5 about 17 ms and htmlparser2 under 1 ms, less than the pass that would bound them
 * costs the many ordinary pages of that size (most 200 KB pages have 600–2,800 tags).
 */
const CHEAP_TAG_COUNT = 2_048;
const P: ReadonlySet<string> = new Set(['p']);
const HEADINGS: ReadonlySet<string> = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p']);
const FORM_CONTROLS: ReadonlySet<string> = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const DEFINITIONS: ReadonlySet<string> = new Set(['dd', 'dt']);
const RUBY: ReadonlySet<string> = new Set(['rt', 'rp']);
const TABLE_SECTIONS: ReadonlySet<string> = new Set(['thead', 'tbody']);
/**
 * Start tags that close the open element on top when it is one of these (`<li>` closes an open
 * `<li>`, a block closes an open `<p>`): HTML written without end tags is common, and counting
 * its `<p>`s as nested would cut a harmless page. The table is the one htmlparser2's parser uses.
 */
const CLOSED_BY: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['a', new Set(['a'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DEFINITIONS],
  ['dt', DEFINITIONS],
  ['rt', RUBY],
  ['rp', RUBY],
  ['tbody', TABLE_SECTIONS],
  ['tfoot', TABLE_SECTIONS],
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((tag) => [tag, HEADINGS] as const),
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((tag) => [tag, FORM_CONTROLS] as const),
  ...[
    'p',
    'address',
    'article',
    'aside',
    'blockquote',
    'details',
    'div',
    'dl',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'header',
    'hr',
    'main',
    'nav',
    'ol',
    'pre',
    'section',
    'table',
    'ul',
  ].map((tag) => [tag, P] as const),
]);

/**
 * `html` with the start and end tags of elements nested deeper than `maxDepth` taken out; their
 * text stays where it was. A page within the bound, or with too few tags to cost much however it
 * nests them (2,048), comes back unchanged (the same string).
 *
 * Why: htmlparser2 keeps its open elements with `Array.unshift` and parse5 walks them for every
 * start tag, so both take time quadratic in the depth: a hostile page of 50,000 nested `<div>`s
 * (250 KB) held the event loop of a fetch worker for 1.2 s in htmlparser2 and 10 s in cheerio.
 * Call it on a tenant's page before any of them parses it.
 *
 * Linear: one pass over the tags (start and end tags, comments, raw text), open elements counted
 * by name so an end tag finds its element without a walk, start tags that imply the end of an
 * open `<p>`, `<li>` and the like closing it as a parser would, and `<x/>` closing itself in SVG
 * and MathML only, as in parsers. An end tag with no open element stays: parsers ignore it.
 *
 * @param html decoded page HTML
 * @param maxDepth deepest nesting kept, in elements (default {@link MAX_ELEMENT_DEPTH})
 */
export function boundNesting(html: string, maxDepth: number = MAX_ELEMENT_DEPTH): string {
  if (!hasMoreTagsThan(html, Math.max(maxDepth, CHEAP_TAG_COUNT))) return html;
  const stack: string[] = [];
  // Whether each open element is SVG or MathML content, where `<x/>` closes itself.
  const foreign: boolean[] = [];
  const openByName = new Map<string, number>();
  // Start tags cut, by name: their end tags go too (the innermost come first).
  const cutByName = new Map<string, number>();
  // Ranges to cut, as start/end pairs in order.
  const cuts: number[] = [];
  const pop = (): string | undefined => {
    foreign.pop();
    const name = stack.pop();
    if (name !== undefined) openByName.set(name, (openByName.get(name) ?? 1) - 1);
    return name;
  };

  const length = html.length;
  let at = html.indexOf('<');
  while (at >= 0 && at < length) {
    const next = html.charCodeAt(at + 1);
    if (isAsciiLetter(next)) {
      const tag = scanStartTag(html, at);
      if (tag === undefined) break;
      const closes = CLOSED_BY.get(tag.name);
      if (closes !== undefined) while (stack.length > 0 && closes.has(stack[stack.length - 1])) pop();
      const top = stack.length - 1;
      const isForeign = tag.name === 'svg' || tag.name === 'math' || (top >= 0 && foreign[top] && !INTEGRATION_POINTS.has(stack[top]));
      if (!VOID_ELEMENTS.has(tag.name) && !(isForeign && tag.selfClosing)) {
        if (stack.length < maxDepth) {
          stack.push(tag.name);
          foreign.push(isForeign);
          openByName.set(tag.name, (openByName.get(tag.name) ?? 0) + 1);
        } else {
          cuts.push(at, tag.end);
          cutByName.set(tag.name, (cutByName.get(tag.name) ?? 0) + 1);
        }
      }
      const rawText = !isForeign && RAW_TEXT_ELEMENTS.has(tag.name);
      at = rawText ? rawTextEnd(html, tag.end, tag.name) : html.indexOf('<', tag.end);
    } else if (next === SLASH && isAsciiLetter(html.charCodeAt(at + 2))) {
      const nameEnd = tagNameEnd(html, at + 2);
      const name = html.slice(at + 2, nameEnd).toLowerCase();
      const close = html.indexOf('>', nameEnd);
      const end = close < 0 ? length : close + 1;
      const cut = cutByName.get(name) ?? 0;
      if (cut > 0) {
        cutByName.set(name, cut - 1);
        cuts.push(at, end);
      } else if ((openByName.get(name) ?? 0) > 0) {
        while (pop() !== name);
      }
      // Else a stray end tag, which parsers ignore.
      at = html.indexOf('<', end);
    } else if (html.startsWith('<!--', at)) {
      at = html.indexOf('<', commentEnd(html, at + 4));
    } else if (next === BANG || next === QUESTION) {
      const close = html.indexOf('>', at + 2);
      at = close < 0 ? -1 : html.indexOf('<', close + 1);
    } else {
      // A `<` that starts nothing is text.
      at = html.indexOf('<', at + 1);
    }
  }
  if (cuts.length === 0) return html;
  const kept: string[] = [];
  let from = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    kept.push(html.slice(from, cuts[i]));
    from = cuts[i + 1];
  }
  kept.push(html.slice(from));
  return kept.join('');
}

/*
 * A scanner of its own rather than htmlparser2's tokenizer: sharing the tokenizer with a second
 * kind of callbacks made every later parse in the process about 8 % slower (its property lookups
 * turn polymorphic). Where parsers could read a construct two ways, it reads the one that shows
 * more nesting (a comment ends at its first possible end, `noscript` content is markup), so a page
 * cannot hide depth from it: at worst it counts a level a parser would not.
 */

/** Foreign elements whose content is HTML again (HTML §13.2.6.5): `<div/>` stays open there. */
const INTEGRATION_POINTS: ReadonlySet<string> = new Set([
  'foreignobject',
  'desc',
  'title',
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
]);
/** HTML elements whose content both htmlparser2 and parse5 read as text up to their end tag. */
const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set(['script', 'style', 'textarea', 'title']);
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const GREATER = 0x3e;
const EQUALS = 0x3d;

function isAsciiLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

/** Where the tag name starting at `from` ends: at whitespace, `/` or `>`. */
function tagNameEnd(html: string, from: number): number {
  let at = from;
  while (at < html.length) {
    const code = html.charCodeAt(at);
    if (isSpace(code) || code === SLASH || code === GREATER) break;
    at++;
  }
  return at;
}

/** Where a start tag's tokenizer is, between its name and its `>` (HTML §13.2.5.32–.38). */
const enum TagState {
  BeforeName,
  Name,
  AfterName,
  BeforeValue,
  Unquoted,
}

/**
 * The start tag at `at` (a `<` and a letter): its lower-case name and the index after its `>`,
 * read with the HTML tokenizer's attribute states, so a quote opens a value only after `=`
 * (`<div a"b=">` ends at its first `>`). Undefined when the page ends inside the tag: parsers then
 * read no further tag either.
 */
function scanStartTag(html: string, at: number): { name: string; end: number; selfClosing: boolean } | undefined {
  const nameEnd = tagNameEnd(html, at + 1);
  const name = html.slice(at + 1, nameEnd).toLowerCase();
  let state = TagState.BeforeName;
  // A `/` read where an attribute could start: `>` right after it makes the tag self-closing.
  let slash = false;
  for (let pos = nameEnd; pos < html.length; pos++) {
    const code = html.charCodeAt(pos);
    if (code === GREATER && state !== TagState.BeforeValue) return { name, end: pos + 1, selfClosing: slash };
    slash = false;
    switch (state) {
      case TagState.BeforeName:
        if (code === SLASH) slash = true;
        else if (!isSpace(code)) state = TagState.Name;
        break;
      case TagState.Name:
        if (isSpace(code)) state = TagState.AfterName;
        else if (code === SLASH) {
          state = TagState.BeforeName;
          slash = true;
        } else if (code === EQUALS) state = TagState.BeforeValue;
        break;
      case TagState.AfterName:
        if (code === SLASH) {
          state = TagState.BeforeName;
          slash = true;
        } else if (code === EQUALS) state = TagState.BeforeValue;
        else if (!isSpace(code)) state = TagState.Name;
        break;
      case TagState.BeforeValue:
        if (code === GREATER) return { name, end: pos + 1, selfClosing: false };
        if (code === 0x22 || code === 0x27) {
          const closing = html.indexOf(code === 0x22 ? '"' : "'", pos + 1);
          if (closing < 0) return undefined;
          pos = closing;
          state = TagState.BeforeName;
        } else if (!isSpace(code)) {
          state = TagState.Unquoted;
        }
        break;
      case TagState.Unquoted:
        if (isSpace(code)) state = TagState.BeforeName;
        break;
    }
  }
  return undefined;
}

/** The index of the first `<` after the end tag that closes raw text `name` from `from`, or -1. */
function rawTextEnd(html: string, from: number, name: string): number {
  let at = from;
  for (;;) {
    at = html.indexOf('</', at);
    if (at < 0) return -1;
    if (html.slice(at + 2, at + 2 + name.length).toLowerCase() === name) {
      const after = html.charCodeAt(at + 2 + name.length);
      if (Number.isNaN(after) || isSpace(after) || after === SLASH || after === GREATER) return at;
    }
    at += 2;
  }
}

/** The index after the comment whose text starts at `from`: its first possible end (`-->`, `--!>`, or `>` right away). */
function commentEnd(html: string, from: number): number {
  if (html.charCodeAt(from) === GREATER) return from + 1;
  if (html.startsWith('->', from)) return from + 2;
  const dashes = html.indexOf('--', from);
  if (dashes < 0) return html.length;
  for (let at = dashes; at >= 0; at = html.indexOf('--', at + 1)) {
    if (html.charCodeAt(at + 2) === GREATER) return at + 3;
    if (html.startsWith('!>', at + 2)) return at + 4;
  }
  return html.length;
}

/** Whether `html` has more than `count` start tags (`<` and a letter): fewer cannot nest deeper. */
function hasMoreTagsThan(html: string, count: number): boolean {
  let seen = 0;
  for (let at = html.indexOf('<'); at >= 0; at = html.indexOf('<', at + 1)) {
    const next = html.charCodeAt(at + 1) | 0x20;
    if (next >= 0x61 && next <= 0x7a && ++seen > count) return true;
  }
  return false;
}
