import type { Element } from 'domhandler';
import { childElements, parentElement } from '../apply/page-text';
import { isValidSelector } from '../apply/selectors';
import { stableClasses, stableId } from '../apply/structure';

/** A CSS selector that may pick a slot's element, and whether it is anchored (no positions). */
export interface SelectorCandidate {
  readonly selector: string;
  readonly anchored: boolean;
}

/** Attributes sites put on elements to name them for tests and analytics: stable across deploys. */
const NAMING_ATTRIBUTES = ['itemprop', 'data-testid', 'data-test', 'data-qa', 'data-automation-id', 'data-field'];
/** How far up an anchoring ancestor is looked for. */
const MAX_ANCHOR_DISTANCE = 5;

/**
 * Selectors for `element`, anchored ones first (its naming attributes, id, classes, then the same
 * under an anchored ancestor), then positional ones (`:nth-child` chains from the nearest anchored
 * ancestor, and from `body`). Each is checked on pages by the caller; here only that it compiles.
 *
 * @param stop an ancestor not to look above (a list item, for item-relative selectors)
 */
export function selectorCandidates(element: Element, stop?: Element): SelectorCandidate[] {
  const candidates: SelectorCandidate[] = [];
  const add = (selector: string, anchored: boolean): void => {
    if (!candidates.some((candidate) => candidate.selector === selector) && isValidSelector(selector)) {
      candidates.push({ selector, anchored });
    }
  };
  const own = anchorsOf(element);
  for (const selector of own) add(selector, true);

  const ancestors: Element[] = [];
  for (
    let current = parentElement(element);
    current && current !== stop && ancestors.length < MAX_ANCHOR_DISTANCE;
    current = parentElement(current)
  ) {
    if (current.name === 'body' || current.name === 'html') break;
    ancestors.push(current);
  }
  const ownSteps = own.length > 0 ? own : [element.name];
  for (const [distance, ancestor] of ancestors.entries()) {
    for (const anchor of anchorsOf(ancestor).slice(0, 3)) {
      for (const step of ownSteps.slice(0, 3)) add(`${anchor}${distance === 0 ? ' > ' : ' '}${step}`, true);
    }
  }

  // The first element of its name (the page's `h1`, an item's `img`): right more often than it looks.
  add(element.name, true);

  const nearestAnchored = ancestors.findIndex((ancestor) => anchorsOf(ancestor).length > 0);
  if (stop !== undefined && nearestAnchored < 0) {
    add([...ancestors.slice().reverse().map(positionalStep), positionalStep(element)].join(' > '), false);
  }
  if (nearestAnchored >= 0) {
    const anchor = anchorsOf(ancestors[nearestAnchored])[0];
    add([anchor, ...ancestors.slice(0, nearestAnchored).reverse().map(positionalStep), positionalStep(element)].join(' > '), false);
  }
  if (stop === undefined) add(positionalPath(element), false);
  return candidates;
}

/** Anchored simple selectors for the element alone: naming attributes, id, classes. */
function anchorsOf(element: Element): string[] {
  const anchors: string[] = [];
  for (const attribute of NAMING_ATTRIBUTES) {
    const value = element.attribs[attribute];
    if (value !== undefined && value.length <= 60 && !/["\\\n]/.test(value)) anchors.push(`${element.name}[${attribute}="${value}"]`);
  }
  const id = stableId(element);
  if (id !== undefined) anchors.push(`${element.name}#${id}`);
  const classes = stableClasses(element);
  for (const token of classes) anchors.push(`${element.name}.${token}`);
  if (classes.length > 1) anchors.push(`${element.name}.${classes.join('.')}`);
  for (const token of (element.attribs.class ?? '').split(/\s+/)) {
    const name = moduleClassName(token);
    if (name !== undefined) anchors.push(`${element.name}[class*="${name}"]`);
  }
  return anchors;
}

/**
 * The stable part of a CSS-modules class (`_price_1x9q2_31` → `_price_`, `Card_title__a1B2c` →
 * `Card_title__`): the local name a build keeps while the hash after it changes with each deploy.
 */
export function moduleClassName(token: string): string | undefined {
  const match = /^(_?[A-Za-z][A-Za-z0-9-]*_(?:[A-Za-z][A-Za-z0-9-]*_)?_?)([A-Za-z0-9-]{5,8})(?:_\d{1,4})?$/.exec(token);
  if (match === null || !/\d/.test(match[2]) || !/[A-Za-z]/.test(match[2]) || match[1].replace(/_/g, '').length < 3) return undefined;
  return match[1];
}

function positionalStep(element: Element): string {
  const parent = parentElement(element);
  if (parent === undefined) return element.name;
  return `${element.name}:nth-child(${childElements(parent).indexOf(element) + 1})`;
}

/** `body > div:nth-child(2) > … > span:nth-child(1)`: breaks on any layout change, tried last. */
function positionalPath(element: Element): string {
  const steps: string[] = [];
  for (
    let current: Element | undefined = element;
    current && current.name !== 'body' && current.name !== 'html';
    current = parentElement(current)
  ) {
    steps.push(positionalStep(current));
  }
  return ['body', ...steps.reverse()].join(' > ');
}
