import type { Element } from 'domhandler';
import type { EmbeddedFact } from './embedded-fact';

/** OpenGraph and the namespaces written like it (`og:title`, `product:price:amount`, `twitter:card`). */
const OPEN_GRAPH_NAMESPACES: ReadonlySet<string> = new Set(['og', 'product', 'article', 'book', 'profile', 'music', 'video', 'twitter']);

/**
 * The facts of the page's `<meta>` tags: OpenGraph-style ones (`property` or `name` of
 * `og:title`, `product:price:amount`, `twitter:image`) as source `opengraph` with the namespace as
 * root type and the rest, lower-case, as path; other named ones (`description`, `author`,
 * `DC.date.issued`) as source `meta`, root type `meta`. A name used more than once gets `index`.
 * Tags carrying `itemprop` are microdata.
 *
 * @param metas every `<meta>` element, in document order
 */
export function metaTagFacts(metas: readonly Element[]): EmbeddedFact[] {
  const facts: EmbeddedFact[] = [];
  for (const meta of metas) {
    const { property, name, content, itemprop } = meta.attribs;
    if (content === undefined || itemprop !== undefined) continue;
    const value = content.trim();
    const key = (property ?? name)?.trim().toLowerCase();
    if (value === '' || key === undefined || key === '') continue;
    const colon = key.indexOf(':');
    const namespace = colon === -1 ? '' : key.slice(0, colon);
    if (OPEN_GRAPH_NAMESPACES.has(namespace) && colon < key.length - 1) {
      facts.push({ source: 'opengraph', rootType: namespace, path: key.slice(colon + 1), value, item: 0 });
    } else if (name !== undefined) {
      facts.push({ source: 'meta', rootType: 'meta', path: name.trim().toLowerCase(), value, item: 0 });
    }
  }
  indexRepeated(facts);
  return facts;
}

function indexRepeated(facts: EmbeddedFact[]): void {
  const counts = new Map<string, number>();
  const keyOf = (fact: EmbeddedFact): string => `${fact.rootType} ${fact.path}`;
  for (const fact of facts) counts.set(keyOf(fact), (counts.get(keyOf(fact)) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const fact of facts) {
    const key = keyOf(fact);
    if ((counts.get(key) ?? 0) < 2) continue;
    const position = seen.get(key) ?? 0;
    seen.set(key, position + 1);
    fact.index = position;
  }
}
