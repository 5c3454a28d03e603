import type { AnyNode, Document, Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { embeddedFacts, type EmbeddedFact } from '../embedded';
import { LazyValueContext, pageDecimalMark, type DecimalMark, type ValueContext } from '../values';
import { findLabelPairs, type LabelPair } from './labels';
import { isHiddenByMarkup, visibleText } from './page-text';
import { parseStructureToken } from './structure';
import { isElement, NON_VALUE_ELEMENTS } from '@trawl/extraction/dom';
import { boundNesting } from '@trawl/extraction/bounded-nesting';

const WHITESPACE = /\s/;
const WHITESPACE_RUNS = /\s+/;

/** Structure tokens looked up by element name, then id or class, each naming its token. */
export type StructureTokenIndex = ReadonlyMap<string, { ids: ReadonlyMap<string, string>; classes: ReadonlyMap<string, string> }>;

/** The index of `tokens` (`name#id`, `name.class`) for {@link HtmlPage.heldStructureTokens}. */
export function structureTokenIndex(tokens: Iterable<string>): StructureTokenIndex {
  const index = new Map<string, { ids: Map<string, string>; classes: Map<string, string> }>();
  for (const token of tokens) {
    const parsed = parseStructureToken(token);
    // An empty id is a token (`img#`), an empty class never is.
    if (parsed === undefined || (parsed.by === 'class' && parsed.value === '')) continue;
    let entry = index.get(parsed.name);
    if (entry === undefined) index.set(parsed.name, (entry = { ids: new Map(), classes: new Map() }));
    (parsed.by === 'id' ? entry.ids : entry.classes).set(parsed.value, token);
  }
  return index;
}

/**
 * One page parsed once with htmlparser2, and what the auto extractor derives from it on demand
 * (element list, texts, embedded facts, label pairs, structure tokens), each computed at most once:
 * a recipe's fields ask for the same things many times.
 */
export class HtmlPage {
  private elementList: Element[] | undefined;
  private visibleList: Element[] | undefined;
  // Weak: a Map this size lives in the large-object space, which the young generation promotes
  // whole, and from there it held every text's element (and its tree) past later scavenges.
  private readonly texts = new WeakMap<Element, string>();
  private facts: EmbeddedFact[] | undefined;
  private labels: LabelPair[] | undefined;
  private labelIndex: Map<string, LabelPair> | undefined;
  private tokens: Set<string> | undefined;
  private context: ValueContext | undefined;

  private constructor(
    /** The HTML the page was parsed from. */
    readonly html: string,
    readonly document: Document,
    /** The page's final URL. */
    readonly url: URL,
    /** Base for relative URLs: the first `<base href>` against `url`, else `url`. */
    readonly baseUrl: URL,
  ) {}

  /**
   * Parses `html` (htmlparser2, forgiving like a browser for the purposes here).
   *
   * @param html decoded page HTML
   * @param url the page's final URL, absolute
   * @throws TypeError when `url` does not parse
   */
  static parse(html: string, url: string | URL): HtmlPage {
    const pageUrl = typeof url === 'string' ? new URL(url) : url;
    const document = parseDocument(boundNesting(html), { decodeEntities: true }) as unknown as Document;
    const page = new HtmlPage(html, document, pageUrl, pageUrl);
    const base = page.elements.find((element) => element.name === 'base' && element.attribs.href !== undefined);
    const baseUrl = base === undefined ? null : URL.parse(base.attribs.href.trim(), pageUrl.href);
    return baseUrl === null ? page : new HtmlPage(html, document, pageUrl, baseUrl);
  }

  /** Every element in document order. Iterative: a hostile page may nest 100k deep. */
  get elements(): Element[] {
    if (this.elementList === undefined) {
      const all: Element[] = [];
      const stack: AnyNode[] = [...this.document.children].reverse();
      for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
        if (!isElement(node)) continue;
        all.push(node);
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
      }
      this.elementList = all;
    }
    return this.elementList;
  }

  /**
   * Elements a reader may see, in document order: none inside scripts, styles, `head`, templates
   * and the like, nor inside elements hidden by their own markup.
   */
  get visibleElements(): Element[] {
    if (this.visibleList === undefined) {
      const visible: Element[] = [];
      const stack: AnyNode[] = [...this.document.children].reverse();
      for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
        if (!isElement(node) || NON_VALUE_ELEMENTS.has(node.name) || isHiddenByMarkup(node)) continue;
        visible.push(node);
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
      }
      this.visibleList = visible;
    }
    return this.visibleList;
  }

  /** The element's visible text (see `visibleText`), cached. */
  text(element: Element): string {
    let text = this.texts.get(element);
    if (text === undefined) {
      text = visibleText(element);
      this.texts.set(element, text);
    }
    return text;
  }

  /**
   * What the page's values are read with: its URL, and its decimal mark, worked out the first time
   * a number leaves its own open (most pages never have one).
   */
  get valueContext(): ValueContext {
    this.context ??= new LazyValueContext(this.url, undefined, () => this.findDecimalMark());
    return this.context;
  }

  /** The decimal mark the page's prices (else its `<html lang>`) show, as `pageDecimalMark` reads them; the context keeps it. */
  private findDecimalMark(): DecimalMark | undefined {
    const root = this.elements.find((element) => element.name === 'body') ?? this.elements.find((element) => element.name === 'html');
    const lang = this.elements.find((element) => element.name === 'html')?.attribs.lang;
    return root === undefined ? undefined : pageDecimalMark(this.text(root), lang);
  }

  /** JSON-LD, microdata, RDFa and OpenGraph facts of the page. */
  get embedded(): EmbeddedFact[] {
    return (this.facts ??= embeddedFacts(this.document, this.url));
  }

  /** Label/value pairs in document order (see `findLabelPairs`). */
  get labelPairs(): LabelPair[] {
    return (this.labels ??= findLabelPairs(this.visibleElements, (element) => this.text(element)));
  }

  /** The first pair with `label` (normalised), or undefined. */
  labelPair(label: string): LabelPair | undefined {
    if (this.labelIndex === undefined) {
      this.labelIndex = new Map();
      for (const pair of this.labelPairs) if (!this.labelIndex.has(pair.label)) this.labelIndex.set(pair.label, pair);
    }
    return this.labelIndex.get(label);
  }

  /**
   * The page's structure tokens: `name#id` and `name.class` of every element. Unlike
   * `structureTokensOf`, unstable names are kept (checking them costs more than storing them;
   * signatures hold only stable ones, so the extra tokens never match anything).
   */
  get structureTokens(): ReadonlySet<string> {
    if (this.tokens === undefined) {
      const tokens = new Set<string>();
      for (const element of this.elements) {
        const { id, class: classes } = element.attribs;
        if (id !== undefined) tokens.add(`${element.name}#${id}`);
        if (classes !== undefined) for (const token of classes.split(/\s+/)) if (token !== '') tokens.add(`${element.name}.${token}`);
      }
      this.tokens = tokens;
    }
    return this.tokens;
  }

  /**
   * Which of `wanted` (structure tokens, as in {@link structureTokens}) the page holds: the same
   * answers as asking `structureTokens`, without building the page's whole token set, which cost an
   * apply more than any field (a string per class of every element) to answer a few dozen.
   */
  heldStructureTokens(wanted: StructureTokenIndex): ReadonlySet<string> {
    const held = new Set<string>();
    for (const element of this.elements) {
      const asked = wanted.get(element.name);
      if (asked === undefined) continue;
      const { id, class: classes } = element.attribs;
      if (id !== undefined) {
        const token = asked.ids.get(id);
        if (token !== undefined) held.add(token);
      }
      if (classes === undefined || asked.classes.size === 0) continue;
      if (!WHITESPACE.test(classes)) {
        const token = asked.classes.get(classes);
        if (token !== undefined) held.add(token);
        continue;
      }
      for (const name of classes.split(WHITESPACE_RUNS)) {
        const token = asked.classes.get(name);
        if (token !== undefined) held.add(token);
      }
    }
    return held;
  }

  /** `raw` (an attribute value) as an absolute URL against the page's base, or undefined. */
  resolve(raw: string): string | undefined {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('data:') || trimmed.startsWith('javascript:')) return undefined;
    return URL.parse(trimmed, this.baseUrl.href)?.href;
  }
}
