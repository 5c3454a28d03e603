/**
 * English words a field or page type name of `extract=auto` may be made of, for the synthetic
 * sites' assertions: what a developer reading `parsed` would recognise at a glance. A learned name
 * outside it (`3xl`, `gap_2`, `text_base`, `p`) is a class token or a URL fragment, not English.
 * Extend it with real English words when the learner names a new kind of field.
 */
const ENGLISH_FIELD_WORDS: ReadonlySet<string> = new Set(
  (
    'name title headline brand maker manufacturer price regular sale list was currency sku gtin mpn code ' +
    'availability stock description summary body text lead author by date published modified updated ' +
    'rating stars review reviews count weight warranty colour color material size listing items products ' +
    'image url link category product article page record offer model number id condition'
  ).split(' '),
);

/** The words of a snake_case name that are not plain English field words (none when it reads well). */
export function nonEnglishWords(name: string): string[] {
  if (!/^[a-z]+(?:_[a-z]+)*$/.test(name)) return [name];
  return name.split('_').filter((word) => !ENGLISH_FIELD_WORDS.has(word));
}
