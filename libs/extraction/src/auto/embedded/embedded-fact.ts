import type { Element } from 'domhandler';

/** Where in the page's markup a fact was written. */
export type EmbeddedSource = 'json-ld' | 'microdata' | 'rdfa' | 'opengraph' | 'meta';

/** One value of the page's embedded data, with the item and property path it was written under. */
export interface EmbeddedFact {
  source: EmbeddedSource;
  /**
   * schema.org (or og:) type of the item holding the property, without the vocabulary URL:
   * 'Product', 'Offer', 'Article', 'og'. For nested items, the outermost typed item's type is
   * `rootType`. OpenGraph-style meta tags have their namespace (`og`, `product`, `article`,
   * `twitter`), plain `<meta name>` tags `meta`; an untyped item ''.
   */
  rootType: string;
  /**
   * Dotted property path from the root item: 'name', 'offers.price', 'offers.priceCurrency',
   * 'aggregateRating.ratingValue', 'brand.name', 'author.name'; for meta tags the rest of the
   * name, lower-case ('price:amount', 'description'). Arrays: the same path repeated, with `index` set.
   */
  path: string;
  /** Position in the innermost list the value is part of (a JSON-LD array, a repeated property or tag). */
  index?: number;
  value: string;
  /** Microdata and RDFa: the element carrying the property (so the learner can align it to the DOM). */
  element?: Element;
  /**
   * Which root item of its source the fact belongs to, from 0 in document order: the facts of one
   * item share it (tells the page's product from a related product's). 0 for all meta tags.
   */
  item?: number;
}
