import type { AnyNode, Element } from 'domhandler';
import type { EmbeddedFact } from './embedded-fact';
import { localName, propertyValue, tokens } from './markup';
import { isElement } from '@trawl/extraction/dom';

/**
 * The facts of the page's microdata items (HTML §5.2): every `itemscope` element that is not
 * another item's property is a root item; its properties are the `itemprop` elements under it (and under the elements its
 * `itemref` names) up to the next nested item, which is a property's value in turn.
 *
 * @param items every `itemscope` element, in document order
 * @param byId the page's elements by `id`, for `itemref`
 */
export function microdataFacts(items: readonly Element[], byId: ReadonlyMap<string, Element>, base: URL): EmbeddedFact[] {
  const facts: EmbeddedFact[] = [];
  let item = 0;
  for (const element of items) {
    // An item that is some item's property is read as part of it; one whose `itemprop` names no
    // enclosing item (`<div itemprop="mainEntityOfPage" itemscope>` at the top) is a root, as
    // every microdata reader in use treats it.
    if (element.attribs.itemprop !== undefined && hasItemAncestor(element)) continue;
    const rootType = itemTypeOf(element);
    readItem(element, { facts, rootType, item: item++, byId, base }, '', undefined, new Set());
  }
  return facts;
}

interface Reading {
  facts: EmbeddedFact[];
  rootType: string;
  item: number;
  byId: ReadonlyMap<string, Element>;
  base: URL;
}

function hasItemAncestor(element: Element): boolean {
  for (let parent = element.parent; parent !== null; parent = parent.parent) {
    if (isElement(parent as AnyNode) && (parent as Element).attribs.itemscope !== undefined) return true;
  }
  return false;
}

function itemTypeOf(element: Element): string {
  const first = tokens(element.attribs.itemtype)[0];
  return first === undefined ? '' : localName(first);
}

function readItem(item: Element, reading: Reading, prefix: string, index: number | undefined, visiting: Set<Element>): void {
  if (visiting.has(item)) return;
  visiting.add(item);
  const properties = propertiesOf(item, reading.byId);
  const counts = new Map<string, number>();
  for (const property of properties) for (const name of namesOf(property)) counts.set(name, (counts.get(name) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const property of properties) {
    for (const name of namesOf(property)) {
      const position = seen.get(name) ?? 0;
      seen.set(name, position + 1);
      const path = prefix === '' ? name : `${prefix}.${name}`;
      const ownIndex = (counts.get(name) ?? 0) > 1 ? position : index;
      if (property.attribs.itemscope !== undefined) {
        readItem(property, reading, path, ownIndex, visiting);
        continue;
      }
      const value = propertyValue(property, reading.base);
      if (value === '') continue;
      const fact: EmbeddedFact = { source: 'microdata', rootType: reading.rootType, path, value, element: property, item: reading.item };
      if (ownIndex !== undefined) fact.index = ownIndex;
      reading.facts.push(fact);
    }
  }
  visiting.delete(item);
}

function namesOf(element: Element): string[] {
  return tokens(element.attribs.itemprop).map(localName);
}

/** The item's property elements in document order: under it and its `itemref`s, not inside nested items. */
function propertiesOf(item: Element, byId: ReadonlyMap<string, Element>): Element[] {
  const roots: AnyNode[] = [...item.children];
  for (const id of tokens(item.attribs.itemref)) {
    const referenced = byId.get(id);
    if (referenced !== undefined && referenced !== item) roots.push(referenced);
  }
  const properties: Element[] = [];
  const stack = roots.reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isElement(node)) continue;
    if (node.attribs.itemprop !== undefined) properties.push(node);
    if (node.attribs.itemscope !== undefined) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return properties;
}
