import { collapseWhitespace } from './value-kind';

/** The schema.org `ItemAvailability` terms extraction answers. */
export type Availability =
  'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder' | 'Discontinued' | 'LimitedAvailability' | 'InStoreOnly' | 'OnlineOnly' | 'SoldOut';

/** Terms as written in markup, letters only, lower-case (`https://schema.org/In_Stock` → `instock`). */
const TERMS: ReadonlyMap<string, Availability> = new Map<string, Availability>([
  ['instock', 'InStock'],
  ['outofstock', 'OutOfStock'],
  ['oos', 'OutOfStock'],
  ['preorder', 'PreOrder'],
  ['presale', 'PreOrder'],
  ['backorder', 'BackOrder'],
  ['discontinued', 'Discontinued'],
  ['limitedavailability', 'LimitedAvailability'],
  ['instoreonly', 'InStoreOnly'],
  ['onlineonly', 'OnlineOnly'],
  ['soldout', 'SoldOut'],
  // OpenGraph `product:availability` values.
  ['availablefororder', 'InStock'],
  ['available', 'InStock'],
  ['unavailable', 'OutOfStock'],
]);

/**
 * What shops write, lower-case without diacritics (matched against text folded the same way). The
 * longest phrase found wins, so "nicht verfügbar" beats "verfügbar" and "out of stock online" beats
 * "online".
 */
const PHRASES: ReadonlyArray<readonly [string, Availability]> = [
  // English
  ['in stock', 'InStock'],
  ['available', 'InStock'],
  ['available now', 'InStock'],
  ['add to cart', 'InStock'],
  ['add to basket', 'InStock'],
  ['add to bag', 'InStock'],
  ['add to trolley', 'InStock'],
  ['buy now', 'InStock'],
  ['ready to ship', 'InStock'],
  ['ships today', 'InStock'],
  ['out of stock', 'OutOfStock'],
  ['temporarily out of stock', 'OutOfStock'],
  ['currently unavailable', 'OutOfStock'],
  ['unavailable', 'OutOfStock'],
  ['not available', 'OutOfStock'],
  ['not in stock', 'OutOfStock'],
  ['no stock', 'OutOfStock'],
  ['notify me when available', 'OutOfStock'],
  ['email me when available', 'OutOfStock'],
  ['notify me when in stock', 'OutOfStock'],
  // A shop's "sold out" is out of stock (schema.org's SoldOut is for tickets and one-off offers).
  ['sold out', 'OutOfStock'],
  ['sold-out', 'OutOfStock'],
  ['pre-order', 'PreOrder'],
  ['preorder', 'PreOrder'],
  ['pre order', 'PreOrder'],
  ['backorder', 'BackOrder'],
  ['back order', 'BackOrder'],
  ['back-order', 'BackOrder'],
  ['backordered', 'BackOrder'],
  ['on backorder', 'BackOrder'],
  ['discontinued', 'Discontinued'],
  ['no longer available', 'Discontinued'],
  ['limited availability', 'LimitedAvailability'],
  ['limited stock', 'LimitedAvailability'],
  ['low stock', 'LimitedAvailability'],
  ['few left', 'LimitedAvailability'],
  ['only a few left', 'LimitedAvailability'],
  ['last items', 'LimitedAvailability'],
  ['last few', 'LimitedAvailability'],
  ['last one', 'LimitedAvailability'],
  ['almost gone', 'LimitedAvailability'],
  ['selling fast', 'LimitedAvailability'],
  ['limited quantities', 'LimitedAvailability'],
  ['wenige verfugbar', 'LimitedAvailability'],
  ['nur noch wenige', 'LimitedAvailability'],
  ['geringer bestand', 'LimitedAvailability'],
  ['derniers articles', 'LimitedAvailability'],
  ['stock limite', 'LimitedAvailability'],
  ['ultimas unidades', 'LimitedAvailability'],
  ['ultimi pezzi', 'LimitedAvailability'],
  ['available for pre-order', 'PreOrder'],
  ['available for preorder', 'PreOrder'],
  ['available to pre-order', 'PreOrder'],
  ['expected soon', 'PreOrder'],
  ['available soon', 'PreOrder'],
  ['coming soon', 'PreOrder'],
  ['in store only', 'InStoreOnly'],
  ['in-store only', 'InStoreOnly'],
  ['available in store only', 'InStoreOnly'],
  ['online only', 'OnlineOnly'],
  // German
  ['auf lager', 'InStock'],
  ['am lager', 'InStock'],
  ['lieferbar', 'InStock'],
  ['sofort lieferbar', 'InStock'],
  ['verfugbar', 'InStock'],
  ['sofort verfugbar', 'InStock'],
  ['vorratig', 'InStock'],
  ['in den warenkorb', 'InStock'],
  ['nicht auf lager', 'OutOfStock'],
  ['nicht verfugbar', 'OutOfStock'],
  ['nicht lieferbar', 'OutOfStock'],
  ['derzeit nicht verfugbar', 'OutOfStock'],
  ['nicht vorratig', 'OutOfStock'],
  ['ausverkauft', 'OutOfStock'],
  ['vorbestellen', 'PreOrder'],
  ['vorbestellung', 'PreOrder'],
  ['nicht mehr verfugbar', 'Discontinued'],
  ['nicht mehr lieferbar', 'Discontinued'],
  // French
  ['en stock', 'InStock'],
  ['disponible', 'InStock'],
  ['ajouter au panier', 'InStock'],
  ['rupture de stock', 'OutOfStock'],
  ['en rupture', 'OutOfStock'],
  ['indisponible', 'OutOfStock'],
  ['non disponible', 'OutOfStock'],
  ['pas disponible', 'OutOfStock'],
  ['epuise', 'OutOfStock'],
  ['precommande', 'PreOrder'],
  ['pre-commande', 'PreOrder'],
  ['plus disponible', 'Discontinued'],
  // Spanish
  ['en existencia', 'InStock'],
  ['hay existencias', 'InStock'],
  ['anadir al carrito', 'InStock'],
  ['anadir a la cesta', 'InStock'],
  ['agregar al carrito', 'InStock'],
  ['no disponible', 'OutOfStock'],
  ['sin stock', 'OutOfStock'],
  ['sin existencias', 'OutOfStock'],
  ['agotado', 'OutOfStock'],
  ['preventa', 'PreOrder'],
  ['descatalogado', 'Discontinued'],
  // Italian
  ['disponibile', 'InStock'],
  ['in magazzino', 'InStock'],
  ['aggiungi al carrello', 'InStock'],
  ['non disponibile', 'OutOfStock'],
  ['esaurito', 'OutOfStock'],
  ['preordina', 'PreOrder'],
  ['fuori produzione', 'Discontinued'],
  // Dutch
  ['op voorraad', 'InStock'],
  ['leverbaar', 'InStock'],
  ['in winkelwagen', 'InStock'],
  ['niet op voorraad', 'OutOfStock'],
  ['niet leverbaar', 'OutOfStock'],
  ['niet beschikbaar', 'OutOfStock'],
  ['uitverkocht', 'OutOfStock'],
  // Portuguese
  ['em estoque', 'InStock'],
  ['disponivel', 'InStock'],
  ['indisponivel', 'OutOfStock'],
  ['esgotado', 'OutOfStock'],
  // Nordic and Polish
  ['pa lager', 'InStock'],
  ['i lager', 'InStock'],
  ['i lager online', 'InStock'],
  ['ej i lager', 'OutOfStock'],
  ['ikke pa lager', 'OutOfStock'],
  ['slutsald', 'OutOfStock'],
  ['utsolgt', 'OutOfStock'],
  ['udsolgt', 'OutOfStock'],
  ['dostepny', 'InStock'],
  ['niedostepny', 'OutOfStock'],
  ['brak w magazynie', 'OutOfStock'],
  ['wyprzedany', 'OutOfStock'],
  // Russian, Japanese, Chinese
  ['в наличии', 'InStock'],
  ['нет в наличии', 'OutOfStock'],
  ['在庫あり', 'InStock'],
  ['在庫なし', 'OutOfStock'],
  ['有货', 'InStock'],
  ['缺货', 'OutOfStock'],
];

/** Longest phrase first: the first phrase found in a text is then the most specific one. */
const BY_LENGTH = [...PHRASES].sort((a, b) => b[0].length - a[0].length);
/** Longest text searched for availability words; a product description is not a stock status. */
const MAX_AVAILABILITY_TEXT = 300;

/**
 * The schema.org availability a text states, or undefined: a schema term or URL
 * (`http://schema.org/InStock`, `instock`, OpenGraph's `oos`) or words in English, German, French,
 * Spanish, Italian, Dutch, Portuguese, the Nordic languages, Polish, Russian, Japanese or Chinese
 * ("in stock", "add to cart", "auf Lager", "rupture de stock", "agotado"). A negated phrase wins
 * over the phrase it contains ("nicht verfügbar" is OutOfStock).
 *
 * @param maxLength longest text considered, in characters
 */
export function parseAvailability(raw: string, maxLength = MAX_AVAILABILITY_TEXT): Availability | undefined {
  const text = collapseWhitespace(raw);
  if (text === '' || text.length > maxLength) return undefined;
  // Terms are written as one token (`SoldOut`, `in_stock`); words are read as phrases below.
  const term = /\s/.test(text)
    ? undefined
    : TERMS.get(
        text
          .replace(/^.*schema\.org\/|^schema:/i, '')
          .replace(/[^a-z]/gi, '')
          .toLowerCase(),
      );
  if (term !== undefined) return term;
  const folded = fold(text);
  const fewLeft = FEW_LEFT.exec(folded);
  // A phrase inside a longer one found ("available" in "not available") does not count; of the
  // rest, a state other than in stock wins: "Available for pre-order", "In stock, only 2 left".
  const spans: Array<{ start: number; end: number; availability: Availability }> = [];
  if (fewLeft !== null) spans.push({ start: fewLeft.index, end: fewLeft.index + fewLeft[0].length, availability: 'LimitedAvailability' });
  for (const [phrase, availability] of BY_LENGTH) {
    const at = phraseAt(folded, phrase);
    if (at < 0 || spans.some((span) => at < span.end && at + phrase.length > span.start)) continue;
    spans.push({ start: at, end: at + phrase.length, availability });
  }
  return (spans.find((span) => span.availability !== 'InStock') ?? spans[0])?.availability;
}

/** "Only 3 left", "nur noch 2 verfügbar", "2 left in stock": a count left is limited availability. */
const FEW_LEFT =
  /\b(?:only|just|nur noch|noch|plus que|solo|ultimi|nog maar)\s+\d{1,3}\s+(?:\p{L}+\s+)?(?:left|remaining|available|verfugbar|auf lager|en stock|disponibles?|rimasti|over)\b|\b\d{1,3}\s+(?:left in stock|left|remaining)\b/u;

/** Lower-case, diacritics removed (`Verfügbar` → `verfugbar`), CJK untouched. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Where `phrase` occurs in `text` not glued to letters on either side (CJK phrases anywhere), or -1. */
function phraseAt(text: string, phrase: string): number {
  let at = text.indexOf(phrase);
  while (at !== -1) {
    const before = text[at - 1];
    const after = text[at + phrase.length];
    if (!isLetter(before) && !isLetter(after)) return at;
    at = text.indexOf(phrase, at + 1);
  }
  return /[\u3040-\u9fff]/.test(phrase) ? text.indexOf(phrase) : -1;
}

function isLetter(char: string | undefined): boolean {
  return char !== undefined && /\p{L}/u.test(char);
}
