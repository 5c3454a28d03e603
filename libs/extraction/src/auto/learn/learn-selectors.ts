import type { Element } from 'domhandler';
import type { HtmlPage } from '../apply/html-page';
import { runExtractor } from '../apply/run-extractor';
import type { CssExtractorStep } from '../recipe';
import { sameValue, type ValueKind } from '../values';
import { selectorCandidates } from './selector-candidates';

/** What a field's value is on one sample page, and the elements it was seen in. */
export interface SlotObservation {
  readonly page: HtmlPage;
  /** The normalised value expected on this page; undefined when unknown. */
  readonly value: string | undefined;
  /** Elements holding the value on this page (empty when not seen in the DOM). */
  readonly elements: readonly Element[];
  /** The elements to search (a list item's); default the whole page. */
  readonly scope?: readonly Element[];
  /** The ancestor the selectors are relative to (a list item). */
  readonly stop?: Element;
}

/** A selector found to pick the value, with how many pages it was checked on. */
export interface LearnedSelector extends CssExtractorStep {
  readonly support: number;
}

/** Pages that seed selector candidates: more cost time and rarely find a better anchor. */
const SEED_PAGES = 4;

/**
 * The best anchored and the best positional CSS extractor for a slot, from candidates built on its
 * elements: a candidate is kept when on every observed page its first value equals the expected
 * one and it is right on at least `minSupport` pages. Anchored comes first; ties go to the one
 * naming the element (id, attribute, class) over a bare tag, then the shorter, then the
 * alphabetically first selector, so that learning is deterministic.
 *
 * @param attribute read this attribute instead of the text (`src` of an image)
 */
export function learnSelectors(
  observations: readonly SlotObservation[],
  kind: ValueKind,
  attribute: string | undefined,
  minSupport: number,
  affixes: Pick<CssExtractorStep, 'prefix' | 'suffix'> = {},
): LearnedSelector[] {
  const seeds = observations.filter((observation) => observation.elements.length > 0).slice(0, SEED_PAGES);
  const candidates = new Map<string, boolean>();
  for (const seed of seeds) {
    for (const element of seed.elements.slice(0, 3)) {
      for (const candidate of selectorCandidates(element, seed.stop)) {
        if (!candidates.has(candidate.selector)) candidates.set(candidate.selector, candidate.anchored);
      }
    }
  }
  const scored: LearnedSelector[] = [];
  for (const [selector, anchored] of candidates) {
    const extractor: CssExtractorStep = { type: 'css', selector, anchored, ...(attribute ? { attribute } : {}), ...affixes };
    let right = 0;
    let wrong = false;
    for (const observation of observations) {
      if (observation.value === undefined) continue;
      const found = runExtractor(observation.page, extractor, kind, observation.scope);
      if (found === undefined) continue;
      if (sameValue(kind, found.value, observation.value)) right++;
      else {
        wrong = true;
        break;
      }
    }
    if (!wrong && right >= minSupport) scored.push({ ...extractor, support: right });
  }
  const best = (anchored: boolean): LearnedSelector | undefined =>
    scored
      .filter((candidate) => candidate.anchored === anchored)
      .sort(
        (a, b) =>
          b.support - a.support ||
          specificity(b.selector) - specificity(a.selector) ||
          a.selector.length - b.selector.length ||
          (a.selector < b.selector ? -1 : 1),
      )[0];
  return [best(true), best(false)].filter((found): found is LearnedSelector => found !== undefined);
}

/** Whether a selector names its element (id, attribute, class): 1, or is a bare tag: 0. */
export function specificity(selector: string): number {
  return /[#.[]/.test(selector) ? 1 : 0;
}

/** Meaning keys of anchored selectors that name their element (a bare `td` means nothing). */
export function cssMeanings(css: readonly CssExtractorStep[]): string[] {
  return css.filter((step) => step.anchored && specificity(step.selector) > 0).map((step) => `css:${step.selector}`);
}

/** A learned selector as a recipe stores it (without its support count). */
export function toCssExtractor(selector: CssExtractorStep): CssExtractorStep {
  return {
    type: 'css',
    selector: selector.selector,
    anchored: selector.anchored,
    ...(selector.attribute ? { attribute: selector.attribute } : {}),
    ...(selector.prefix ? { prefix: selector.prefix } : {}),
    ...(selector.suffix ? { suffix: selector.suffix } : {}),
  };
}
