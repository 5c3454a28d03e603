import type { AnyNode, Element } from 'domhandler';
import { BLOCK_ELEMENTS, isElement, NON_VALUE_ELEMENTS } from '@trawl/extraction/dom';

/**
 * Text helpers over htmlparser2 trees for the auto extractor. `dom.ts` has the same rules for
 * cheerio trees, and the element names both read by; the auto extractor walks htmlparser2's own
 * nodes (parsed once, no cheerio wrappers), whose element type tag set is the same.
 */

/** Whether `name` is a block-level element (its edges separate words). */
export function isBlock(name: string): boolean {
  return BLOCK_ELEMENTS.has(name);
}

/** Collapses whitespace runs (NBSP included) to one space and trims. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The text a reader sees in `element`: descendants' text in order, words split at block edges,
 * scripts and the like left out, whitespace collapsed. Iterative: a hostile page may nest deeper
 * than the call stack goes.
 */
export function visibleText(element: Element): string {
  let text = '';
  const stack: Array<AnyNode | null> = [];
  for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i]);
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node === null) {
      text += ' ';
    } else if (node.type === 'text') {
      text += node.data;
    } else if (isElement(node) && !NON_VALUE_ELEMENTS.has(node.name)) {
      if (BLOCK_ELEMENTS.has(node.name)) {
        text += ' ';
        stack.push(null);
      }
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
  return collapse(text);
}

const SPACE = /\s/;

/**
 * Whether `visibleText(element)` ends with a colon (`:` or `：`), read from the end of the element's
 * last text, without building the text: asked of the first child of every element a label might
 * be in, whose whole text would be built for one character.
 */
export function visibleTextEndsWithColon(element: Element): boolean {
  // Children pushed in order and popped from the end: the subtree in reverse document order.
  const stack: AnyNode[] = [...element.children];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.type === 'text') {
      const data = node.data;
      for (let i = data.length - 1; i >= 0; i--) {
        const char = data[i];
        if (!SPACE.test(char)) return char === ':' || char === '：';
      }
    } else if (isElement(node) && !NON_VALUE_ELEMENTS.has(node.name)) {
      for (const child of node.children) stack.push(child);
    }
  }
  return false;
}

/** The text of `element`'s own text children (not its descendants'), collapsed. */
export function ownText(element: Element): string {
  let text = '';
  for (const child of element.children) if (child.type === 'text') text += child.data;
  return collapse(text);
}

/** The element children of `element`, in order. */
export function childElements(element: Element): Element[] {
  const found: Element[] = [];
  for (const child of element.children) if (isElement(child)) found.push(child);
  return found;
}

/** The parent element, or undefined at the root. */
export function parentElement(element: Element): Element | undefined {
  const parent = element.parent as AnyNode | null;
  return parent !== null && isElement(parent) ? parent : undefined;
}

/** Next element sibling, skipping text and comments. */
export function nextElement(element: Element): Element | undefined {
  for (let node = element.next as AnyNode | null; node !== null; node = node.next as AnyNode | null) {
    if (isElement(node)) return node;
  }
  return undefined;
}

/**
 * Whether the element is hidden by its own markup (`hidden`, inline `display:none`), so that a
 * reader never sees it.
 */
export function isHiddenByMarkup(element: Element): boolean {
  if (element.attribs.hidden !== undefined) return true;
  const style = element.attribs.style;
  return style !== undefined && /display\s*:\s*none/i.test(style);
}

/** `element`'s descendant elements in document order. Iterative, like every walk here. */
export function descendants(element: Element): Element[] {
  const found: Element[] = [];
  const stack: AnyNode[] = [...element.children].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isElement(node)) continue;
    found.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return found;
}
