import type { AnyNode, Element } from 'domhandler';
import type { EmbeddedFact } from './embedded-fact';
import { localName, propertyValue, tokens } from './markup';
import { isElement } from '@trawl/extraction/dom';

/**
 * The facts of the page's RDFa Lite (`vocab`, `typeof`, `property`): every `typeof` element that is
 * no `property`'s value is a root item, its properties the `property` elements under it up to the
 * next `typeof`. Prefixes are dropped (`schema:price` → `price`). Meta tags with `property` outside
 * any item are OpenGraph, read by `metaTagFacts`.
 *
 * @param items every `typeof` element, in document order
 */
export function rdfaFacts(items: readonly Element[], base: URL): EmbeddedFact[] {
  const facts: EmbeddedFact[] = [];
  let item = 0;
  for (const element of items) {
    if (element.attribs.property !== undefined && hasItemAncestor(element)) continue;
    const rootType = localName(tokens(element.attribs.typeof)[0] ?? '');
    readItem(element, { facts, rootType, item: item++, base }, '', undefined);
  }
  return facts;
}

interface Reading {
  facts: EmbeddedFact[];
  rootType: string;
  item: number;
  base: URL;
}

function hasItemAncestor(element: Element): boolean {
  for (let parent = element.parent; parent !== null; parent = parent.parent) {
    if (isElement(parent as AnyNode) && (parent as Element).attribs.typeof !== undefined) return true;
  }
  return false;
}

function readItem(item: Element, reading: Reading, prefix: string, index: number | undefined): void {
  const properties = propertiesOf(item);
  const counts = new Map<string, number>();
  for (const property of properties) for (const name of namesOf(property)) counts.set(name, (counts.get(name) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const property of properties) {
    for (const name of namesOf(property)) {
      const position = seen.get(name) ?? 0;
      seen.set(name, position + 1);
      const path = prefix === '' ? name : `${prefix}.${name}`;
      const ownIndex = (counts.get(name) ?? 0) > 1 ? position : index;
      if (property.attribs.typeof !== undefined) {
        readItem(property, reading, path, ownIndex);
        continue;
      }
      const value = property.attribs.resource?.trim() || propertyValue(property, reading.base);
      if (value === '') continue;
      const fact: EmbeddedFact = { source: 'rdfa', rootType: reading.rootType, path, value, element: property, item: reading.item };
      if (ownIndex !== undefined) fact.index = ownIndex;
      reading.facts.push(fact);
    }
  }
}

function namesOf(element: Element): string[] {
  return tokens(element.attribs.property)
    .map(localName)
    .filter((name) => name !== '');
}

function propertiesOf(item: Element): Element[] {
  const properties: Element[] = [];
  const stack: AnyNode[] = [...item.children].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isElement(node)) continue;
    if (node.attribs.property !== undefined) properties.push(node);
    if (node.attribs.typeof !== undefined) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return properties;
}
