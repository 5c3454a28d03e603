import type { Element } from 'domhandler';
import { isElement } from '@trawl/extraction/dom';
import { childElements, isBlock, nextElement, visibleTextEndsWithColon } from './page-text';

/** A label on the page and the value it introduces. */
export interface LabelPair {
  /** The label as `normaliseLabel` writes it. */
  readonly label: string;
  /** The value's text, collapsed. */
  readonly value: string;
  /** The element holding the value; for "Label: value" text, the element holding both. */
  readonly valueElement: Element;
  /** The element holding only the label (a `th`, a `dt`), when it has one of its own: never a value. */
  readonly labelElement?: Element;
}

/** Longest label taken as one, in characters: longer text is a sentence, not a label. */
const MAX_LABEL_LENGTH = 40;
/** Longest "Label: value" element considered, in characters. */
const MAX_INLINE_PAIR_LENGTH = 200;
const INLINE_PAIR = /^([^:：]{1,40}?)\s*[:：]\s*(\S.*)$/s;

/**
 * A label's text as recipes store it: lower-case, whitespace collapsed, without the colon, asterisk
 * or dash around it; undefined when it cannot be a label (empty, too long, no letter).
 */
export function normaliseLabel(text: string): string | undefined {
  const label = text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^[\s*•·\-–—]+|[\s:：*•·\-–—]+$/g, '');
  if (label.length < 2 || label.length > MAX_LABEL_LENGTH) return undefined;
  if (!/\p{L}/u.test(label)) return undefined;
  return label;
}

/**
 * Every label/value pair on the page, in document order: table rows whose first cell is a header
 * or a short cell beside one other, `dt` and its `dd`, a `label` and the element after it, and
 * short elements reading "Label: value".
 *
 * @param elements the page's visible elements in document order (none inside scripts, styles, `head`)
 * @param textOf the page's (cached) visible text of an element
 */
export function findLabelPairs(elements: readonly Element[], textOf: (element: Element) => string): LabelPair[] {
  const pairs: LabelPair[] = [];
  const add = (labelText: string, valueElement: Element | undefined, value?: string, labelElement?: Element): void => {
    if (valueElement === undefined) return;
    const label = normaliseLabel(labelText);
    const text = value ?? textOf(valueElement);
    if (label !== undefined && text !== '' && text.length <= 2000)
      pairs.push({ label, value: text, valueElement, ...(labelElement && { labelElement }) });
  };
  for (const element of elements) {
    switch (element.name) {
      case 'tr': {
        const cells = childElements(element).filter((cell) => cell.name === 'th' || cell.name === 'td');
        if (cells.length === 2 && (cells[0].name === 'th' || textOf(cells[0]).length <= MAX_LABEL_LENGTH)) {
          if (cells[1].name === 'td') add(textOf(cells[0]), cells[1], undefined, cells[0]);
        }
        break;
      }
      case 'dt': {
        const next = nextElement(element);
        if (next?.name === 'dd') add(textOf(element), next, undefined, element);
        break;
      }
      case 'label': {
        const next = nextElement(element);
        if (next !== undefined && next.name !== 'input' && next.name !== 'label') add(textOf(element), next, undefined, element);
        break;
      }
      default:
        addInlinePair(element, textOf, add);
    }
  }
  return pairs;
}

/**
 * "SKU: 123" in one element (`<li><b>SKU:</b> 123</li>`), or a short element ending with a colon
 * followed by its value's element (`<span>SKU:</span><span>123</span>`).
 */
function addInlinePair(
  element: Element,
  textOf: (element: Element) => string,
  add: (label: string, valueElement: Element | undefined, value?: string, labelElement?: Element) => void,
): void {
  if (element.name === 'th' || element.name === 'dd' || element.name === 'body' || element.name === 'html') return;
  // The colon must be written in this element (its own text, or its first child's), not deeper:
  // checked before the element's whole text is built, which most elements never need. One pass
  // over the children, building no list and no text: this runs for every visible element.
  let first: Element | undefined;
  let ownColon = false;
  for (const child of element.children) {
    if (isElement(child)) {
      if (isBlock(child.name) && child.name !== 'br') return;
      first ??= child;
    } else if (!ownColon && child.type === 'text') {
      ownColon = child.data.includes(':') || child.data.includes('：');
    }
  }
  const labelHere = ownColon || (first !== undefined && visibleTextEndsWithColon(first));
  if (!labelHere) return;
  const text = textOf(element);
  if (text === '' || text.length > MAX_INLINE_PAIR_LENGTH) return;
  if (/[:：]$/.test(text) && text.length <= MAX_LABEL_LENGTH + 1) {
    // Only the label: its value is the next element.
    const next = nextElement(element);
    if (next !== undefined && next.name !== 'input') add(text, next, undefined, element);
    return;
  }
  const match = INLINE_PAIR.exec(text);
  if (match === null) return;
  // A URL's scheme or a clock time is not a label.
  if (/^(?:https?|mailto|tel)$/i.test(match[1]) || /\d$/.test(match[1])) return;
  add(match[1], element, match[2].trim());
}
