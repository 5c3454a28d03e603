import { load } from 'cheerio';
import type { Element } from 'domhandler';
import { isElement, textOf } from './dom';
import { ExtractionError, ExtractionErrorCode } from './extraction.errors';
import { parsePage, type ParsedPage } from './parsed-page';
import { resolveAnyUrl } from './urls';

/** A validated `css_extractor`: answer name → selector, optionally ending ` @attribute`. */
export type CssExtractor = Readonly<Record<string, string>>;

/**
 * The answer to a `css_extractor`, keyed by its names. For each name: the one match's value as a
 * string, a list of values (document order) when several nodes match, and `""` when none does —
 * the shape clients of the service we mirror already parse (see docs/decisions/output-shapes.md, "css_extractor").
 */
export type CssExtraction = Record<string, string | string[]>;

/** At most this many names in one extractor: each is a selector run over the whole page. */
export const MAX_CSS_EXTRACTOR_FIELDS = 100;
/** Longest selector accepted, in characters. */
export const MAX_CSS_SELECTOR_LENGTH = 2_000;

/** Attributes whose value is a URL: answered absolute, resolved against the page's base. */
const URL_ATTRIBUTES: ReadonlySet<string> = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'poster',
  'cite',
  'data',
  'background',
  'longdesc',
]);

/** `selector @attr`: whitespace, `@`, an attribute name (HTML: no space, quote, `>`, `/`, `=`). */
const ATTRIBUTE_SUFFIX = /(?:^|\s)@([^\s"'<>/=@]+)\s*$/;
/** A selector may not start or end with a combinator: there is nothing on that side to relate to. */
const DANGLING_COMBINATOR = /^[>+~,]|[>+~,]$/;

interface CompiledField {
  readonly name: string;
  readonly selector: string;
  readonly attribute: string | undefined;
}

/**
 * An empty document to compile selectors against: cheerio compiles a selector when it runs. Always
 * `.find`, never `$(string)`, which builds elements when the string looks like HTML.
 */
const probe = load('');

/**
 * Parses and validates the `css_extractor` query parameter (JSON `{name: selector}`).
 *
 * @param json the parameter's value, URL-decoded
 * @returns the extractor, ready for `applyCssExtractor`
 * @throws ExtractionError `invalid_css_extractor` (answered `RESP004`) when the value is not JSON,
 *   not an object, empty, has more than `MAX_CSS_EXTRACTOR_FIELDS` names, an empty name, a value
 *   that is not a non-empty string, or a selector that does not compile
 */
export function parseCssExtractor(json: string): CssExtractor {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw invalid('css_extractor is not valid JSON', error);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('css_extractor must be a JSON object of name → CSS selector');
  }
  const entries = Object.entries(value);
  if (entries.length === 0) throw invalid('css_extractor has no selectors');
  const extractor: Record<string, string> = {};
  for (const [name, selector] of entries) {
    if (typeof selector !== 'string') throw invalid(`css_extractor "${name}": the selector must be a string`);
    extractor[name] = selector;
  }
  compileExtractor(extractor);
  return extractor;
}

/**
 * Runs a `css_extractor` over a page. Each selector answers the text of the nodes it matches
 * (trimmed, whitespace collapsed, script and style text left out), or with a ` @attr` suffix that
 * attribute (trimmed; `href`, `src` and other URL attributes resolved absolute against the page's
 * base; `""` for a node without it, so lists of several names stay aligned).
 *
 * @param page the HTML, or a page already parsed with `parsePage` (parse once for several transforms)
 * @param extractor names → selectors, as `parseCssExtractor` returns them (validated again here)
 * @param pageUrl the page's final URL; used only when `page` is HTML
 * @returns for each name: `""` when nothing matches, a string for one match, a list for several
 * @throws ExtractionError `invalid_css_extractor` as `parseCssExtractor` does
 */
export function applyCssExtractor(page: string | ParsedPage, extractor: CssExtractor, pageUrl?: string): CssExtraction {
  const fields = compileExtractor(extractor);
  const parsed = typeof page === 'string' ? parsePage(page, requireUrl(pageUrl)) : page;
  const answer: CssExtraction = {};
  for (const field of fields) {
    const values: string[] = [];
    for (const node of parsed.$.root().find(field.selector).toArray()) {
      if (isElement(node)) values.push(valueOf(node, field.attribute, parsed.baseUrl));
    }
    answer[field.name] = values.length === 0 ? '' : values.length === 1 ? values[0] : values;
  }
  return answer;
}

function valueOf(element: Element, attribute: string | undefined, base: URL): string {
  if (attribute === undefined) return textOf(element);
  const raw = element.attribs[attribute];
  if (raw === undefined) return '';
  return URL_ATTRIBUTES.has(attribute) ? resolveAnyUrl(raw, base) : raw.trim();
}

function compileExtractor(extractor: CssExtractor): CompiledField[] {
  const names = Object.keys(extractor);
  if (names.length === 0) throw invalid('css_extractor has no selectors');
  if (names.length > MAX_CSS_EXTRACTOR_FIELDS) {
    throw invalid(`css_extractor has ${names.length} selectors; at most ${MAX_CSS_EXTRACTOR_FIELDS} are allowed`);
  }
  return names.map((name) => compileField(name, extractor[name]));
}

function compileField(name: string, raw: string): CompiledField {
  if (name.trim() === '') throw invalid('css_extractor has an empty name');
  if (raw.length > MAX_CSS_SELECTOR_LENGTH) {
    throw invalid(`css_extractor "${name}": the selector is longer than ${MAX_CSS_SELECTOR_LENGTH} characters`);
  }
  let selector = raw.trim();
  let attribute: string | undefined;
  const suffix = ATTRIBUTE_SUFFIX.exec(selector);
  if (suffix) {
    attribute = suffix[1].toLowerCase();
    selector = selector.slice(0, suffix.index).trim();
  }
  if (selector === '') throw invalid(`css_extractor "${name}": the selector is empty`);
  // css-what reads a stray `@` as part of a name; no CSS selector holds one outside a string.
  if (selector.includes('@') && !/["']/.test(selector)) {
    throw invalid(`css_extractor "${name}": "${selector}" is not a valid CSS selector (stray "@")`);
  }
  if (DANGLING_COMBINATOR.test(selector)) {
    throw invalid(`css_extractor "${name}": "${selector}" starts or ends with a combinator`);
  }
  try {
    probe.root().find(selector);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(`css_extractor "${name}": "${selector}" is not a valid CSS selector (${reason})`, error);
  }
  return { name, selector, attribute };
}

function requireUrl(pageUrl: string | undefined): string {
  if (pageUrl === undefined) {
    throw new ExtractionError(ExtractionErrorCode.InvalidPageUrl, 'The page URL is needed to parse HTML');
  }
  return pageUrl;
}

function invalid(message: string, cause?: unknown): ExtractionError {
  return new ExtractionError(ExtractionErrorCode.InvalidCssExtractor, message, { cause });
}
