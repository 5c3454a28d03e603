import type { Element } from 'domhandler';

/**
 * A class or id that names a part of the layout (`price`, `product-title`), as opposed to one a
 * build tool or a CMS generated (`css-1x2ab3c`, `post-12345`, `sc-bdVaJa`), which changes between
 * pages or deploys and would make selectors and signatures brittle.
 */
export function isStableToken(token: string): boolean {
  if (token.length < 2 || token.length > 40) return false;
  if (!/^[A-Za-z][\w-]*$/.test(token)) return false;
  if (/\d{3,}/.test(token)) return false;
  // Hashed CSS-in-JS names mix cases and digits in a short run: `sc-bdVaJa`, `css-1q2w3e`, `jsx-9a8b`.
  if (/^(?:css|sc|jsx|emotion|svelte|styled|_)-?/.test(token) && /\d|[a-z][A-Z]/.test(token.slice(3))) return false;
  if (/[a-z]\d[a-z]|\d[a-z]\d/i.test(token) && !/-/.test(token)) return false;
  return true;
}

/** The element's stable class tokens, in the order written, without duplicates. */
export function stableClasses(element: Element): string[] {
  const raw = element.attribs.class;
  if (raw === undefined) return [];
  const seen = new Set<string>();
  for (const token of raw.split(/\s+/)) if (token !== '' && isStableToken(token)) seen.add(token);
  return [...seen];
}

/** The element's id when stable, else undefined. */
export function stableId(element: Element): string | undefined {
  const id = element.attribs.id;
  return id !== undefined && isStableToken(id) ? id : undefined;
}

/** A structure token's parts: `div#main` is the element `div` by id `main`; undefined for one without an element name. */
export function parseStructureToken(token: string): { name: string; by: 'id' | 'class'; value: string } | undefined {
  const at = token.search(/[.#]/);
  if (at <= 0) return undefined;
  return { name: token.slice(0, at), by: token[at] === '#' ? 'id' : 'class', value: token.slice(at + 1) };
}

/** Whether a structure token (`div#main`, `span.price`) names its element stably (see `isStableToken`). */
export function isStableStructureToken(token: string): boolean {
  const parsed = parseStructureToken(token);
  return parsed !== undefined && isStableToken(parsed.value);
}

/**
 * Share of `signature` (a page type's structure tokens) present in `tokens` (a page's), 0–1. An
 * empty signature fits nothing: a type learned from pages without stable tokens is matched by URL
 * only.
 */
export function structureSimilarity(signature: readonly string[], tokens: ReadonlySet<string>): number {
  if (signature.length === 0) return 0;
  let shared = 0;
  for (const token of signature) if (tokens.has(token)) shared++;
  return shared / signature.length;
}
