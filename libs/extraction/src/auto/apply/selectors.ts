import { compile } from 'css-select';
import type { AnyNode, Element } from 'domhandler';

type CompiledSelector = (element: Element) => boolean;

/** Compiled selectors by text. Recipes are few and small; the cap only bounds a runaway caller. */
const compiled = new Map<string, CompiledSelector | null>();
const MAX_COMPILED = 20_000;

/** `selector` compiled once per process, or null when it does not compile. */
function compiledSelector(selector: string): CompiledSelector | null {
  let query = compiled.get(selector);
  if (query === undefined) {
    try {
      query = compile<AnyNode, Element>(selector);
    } catch {
      query = null;
    }
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(selector, query);
  }
  return query;
}

/**
 * Elements of `candidates` (a page's or an item's elements in document order) matching `selector`.
 * Filtering a flat list avoids a tree walk per selector; a selector that does not compile matches
 * nothing (a recipe from a newer learner must not break an older worker).
 */
export function matchAll(selector: string, candidates: readonly Element[]): Element[] {
  const query = compiledSelector(selector);
  if (query === null) return [];
  return candidates.filter((element) => query(element));
}

/** The elements of `candidates` matching `selector`, in order, tested only as far as they are read. */
export function* lazyMatches(selector: string, candidates: readonly Element[]): Generator<Element> {
  const query = compiledSelector(selector);
  if (query === null) return;
  for (const element of candidates) if (query(element)) yield element;
}

/** Whether `selector` compiles. */
export function isValidSelector(selector: string): boolean {
  return compiledSelector(selector) !== null;
}
