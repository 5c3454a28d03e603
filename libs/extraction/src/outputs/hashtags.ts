import type { ParsedPage } from '../parsed-page';

/**
 * `#` then letters, digits and `_`, not glued to a preceding word, entity or path (`a#b`, `&#38;`,
 * `/#/route`). Linear: one character class, no nesting.
 */
const HASHTAG = /(?<![\p{L}\p{N}_&#/])#([\p{L}\p{N}_]{1,100})(?![\p{L}\p{N}_])/gu;
const HAS_LETTER = /\p{L}/u;

/**
 * `hashtags` output: unique hashtags (`#word`, with the `#`) of the page's visible text, in order
 * of first appearance. A tag needs a letter (`#1` is a rank, not a tag); tags that differ only in
 * case count once, written as first seen.
 */
export function extractHashtags(page: ParsedPage): string[] {
  const byKey = new Map<string, string>();
  for (const match of page.visibleText.matchAll(HASHTAG)) {
    const word = match[1];
    if (!HAS_LETTER.test(word)) continue;
    const key = word.toLowerCase();
    if (!byKey.has(key)) byKey.set(key, `#${word}`);
  }
  return [...byKey.values()];
}
