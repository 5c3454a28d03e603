import { collapseWhitespace, rawText } from '../dom';
import type { ParsedPage } from '../parsed-page';
import { resolveAnyUrl } from '../urls';

/** `metadata` output. */
export interface MetadataOutput {
  /** `<title>` text, whitespace collapsed, or null. */
  title: string | null;
  /** `<meta name="description">`, or null. */
  description: string | null;
  /** `<link rel="canonical">` as an absolute URL, or null. */
  canonical: string | null;
  /** `<html lang>`, or null. */
  lang: string | null;
  /** Every other `<meta name content>` (author, keywords, robots, …) by lower-cased name; first wins. */
  meta: Record<string, string>;
  /**
   * Open Graph properties (`og:*` and its `article:`, `product:`, `book:`, `profile:`, `music:`,
   * `video:`, `fb:` namespaces) by full property name; a property given several times (several
   * `og:image`) is a list in document order. URL-valued properties are absolute.
   */
  open_graph: Record<string, string | string[]>;
  /** Twitter card properties (`twitter:*`, in `name` or `property`), same rules as `open_graph`. */
  twitter: Record<string, string | string[]>;
  /**
   * Every JSON-LD block (`<script type="application/ld+json">`) that parses, in document order; a
   * block holding a JSON array contributes its elements. Blocks that do not parse are skipped.
   */
  json_ld: unknown[];
  /** `<link rel="alternate" hreflang>` translations: language and absolute URL. */
  alternates: Array<{ hreflang: string; url: string }>;
}

const OPEN_GRAPH_PREFIX = /^(?:og|article|product|book|profile|music|video|fb):/;
/** Properties whose value is a URL (`og:image`, `og:image:secure_url`, `twitter:image:src`, …). */
const URL_PROPERTY = /^(?:og|twitter):(?:url|image|video|audio|player)(?::(?:url|secure_url|src))?$/;

/**
 * `metadata` output: what the page says about itself in its `<head>` — title, description,
 * canonical URL, language, the other named `<meta>` tags, Open Graph, Twitter card and JSON-LD
 * (see `MetadataOutput`). Absent values are null or empty, never left out, so clients read a fixed
 * shape.
 */
export function extractMetadata(page: ParsedPage): MetadataOutput {
  const [title] = page.elements('title');
  const [html] = page.elements('html');
  const metadata: MetadataOutput = {
    title: title === undefined ? null : nonEmpty(collapseWhitespace(rawText(title))),
    description: null,
    canonical: null,
    lang: nonEmpty((html?.attribs.lang ?? '').trim()),
    meta: {},
    open_graph: {},
    twitter: {},
    json_ld: [],
    alternates: [],
  };
  for (const element of page.elements('meta')) {
    const content = (element.attribs.content ?? '').trim();
    const property = (element.attribs.property ?? '').trim().toLowerCase();
    const name = (element.attribs.name ?? '').trim().toLowerCase();
    const key = property || name;
    if (key === '' || content === '') continue;
    if (key.startsWith('twitter:')) addProperty(metadata.twitter, key, value(page, key, content));
    else if (OPEN_GRAPH_PREFIX.test(key)) addProperty(metadata.open_graph, key, value(page, key, content));
    else if (name === 'description' && metadata.description === null) metadata.description = content;
    else if (name !== '' && !(name in metadata.meta)) metadata.meta[name] = content;
  }
  for (const element of page.elements('link')) {
    const rel = (element.attribs.rel ?? '').toLowerCase().split(/\s+/);
    const url = page.resolve(element.attribs.href);
    if (url === undefined) continue;
    if (rel.includes('canonical') && metadata.canonical === null) metadata.canonical = url;
    const hreflang = element.attribs.hreflang?.trim();
    if (rel.includes('alternate') && hreflang) metadata.alternates.push({ hreflang, url });
  }
  for (const element of page.elements('script')) {
    if ((element.attribs.type ?? '').trim().toLowerCase() !== 'application/ld+json') continue;
    const parsed = parseJsonLd(rawText(element));
    if (Array.isArray(parsed)) metadata.json_ld.push(...(parsed as unknown[]));
    else if (parsed !== undefined) metadata.json_ld.push(parsed);
  }
  return metadata;
}

function value(page: ParsedPage, key: string, content: string): string {
  return URL_PROPERTY.test(key) ? resolveAnyUrl(content, page.baseUrl) : content;
}

function addProperty(target: Record<string, string | string[]>, key: string, content: string): void {
  const known = target[key];
  if (known === undefined) target[key] = content;
  else if (Array.isArray(known)) known.push(content);
  else target[key] = [known, content];
}

/** JSON-LD as pages write it: sometimes wrapped in an HTML comment or CDATA section. */
function parseJsonLd(source: string): unknown {
  const json = source
    .trim()
    .replace(/^(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)/, '')
    .replace(/(?:-->|\/\/\s*\]\]>|\]\]>)$/, '')
    .trim();
  if (json === '') return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

function nonEmpty(text: string): string | null {
  return text === '' ? null : text;
}
