import type { AnyNode, Document, Element } from 'domhandler';
import type { EmbeddedFact } from './embedded-fact';
import { jsonLdFacts } from './json-ld';
import { isElement, rawText } from '@trawl/extraction/dom';
import { metaTagFacts } from './meta-tags';
import { microdataFacts } from './microdata';
import { rdfaFacts } from './rdfa';

/** What one walk of the document gathers for the readers of each kind of markup. */
interface Gathered {
  jsonLd: string[];
  metas: Element[];
  itemScopes: Element[];
  typeOfs: Element[];
  byId: Map<string, Element>;
  baseHref: string | undefined;
}

/**
 * Every fact of the page's embedded data, in this order: JSON-LD (incl. `@graph`, arrays, nested
 * `@type`, and broken JSON where cheap to mend: trailing commas, HTML comment and CDATA wrappers,
 * raw line breaks in strings), microdata (`itemscope`/`itemprop`/`itemtype`, `itemref`), RDFa Lite
 * (`vocab`/`typeof`/`property`), OpenGraph-style meta tags (`og:*`, `product:price:amount`,
 * `twitter:*`, `article:published_time`) and plain named meta tags (`description`, `author`).
 * Within a source, document order. URLs in microdata and RDFa are resolved against the page's
 * `<base href>` or `pageUrl`.
 *
 * One walk over the document, then work only on the elements that carry embedded data.
 *
 * @param document a domhandler document: `cheerio.load(html).root()[0]` or `htmlparser2.parseDocument(html)`
 * @param pageUrl the page's final URL
 */
export function embeddedFacts(document: Document, pageUrl: URL): EmbeddedFact[] {
  const gathered = gather(document);
  const base = (gathered.baseHref !== undefined && URL.parse(gathered.baseHref.trim(), pageUrl.href)) || pageUrl;
  return [
    ...jsonLdFacts(gathered.jsonLd),
    ...(gathered.itemScopes.length === 0 ? [] : microdataFacts(gathered.itemScopes, gathered.byId, base)),
    ...(gathered.typeOfs.length === 0 ? [] : rdfaFacts(gathered.typeOfs, base)),
    ...metaTagFacts(gathered.metas),
  ];
}

function gather(document: Document): Gathered {
  const gathered: Gathered = { jsonLd: [], metas: [], itemScopes: [], typeOfs: [], byId: new Map(), baseHref: undefined };
  const stack: AnyNode[] = [...document.children].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isElement(node)) continue;
    const attribs = node.attribs;
    if (node.name === 'script') {
      if (attribs.type !== undefined && /^\s*application\/ld\+json/i.test(attribs.type)) gathered.jsonLd.push(rawText(node));
      continue;
    }
    if (node.name === 'meta') gathered.metas.push(node);
    else if (node.name === 'base' && gathered.baseHref === undefined && attribs.href !== undefined) gathered.baseHref = attribs.href;
    if (attribs.itemscope !== undefined) gathered.itemScopes.push(node);
    if (attribs.typeof !== undefined) gathered.typeOfs.push(node);
    if (attribs.id !== undefined && !gathered.byId.has(attribs.id)) gathered.byId.set(attribs.id, node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return gathered;
}
