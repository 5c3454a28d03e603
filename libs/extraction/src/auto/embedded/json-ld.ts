import type { EmbeddedFact } from './embedded-fact';
import { collapseWhitespace, decodeEntities, localName } from './markup';

type JsonObject = { [key: string]: unknown };

/** Deepest nesting read: real markup stays under ten; a hostile page may nest thousands deep. */
const MAX_DEPTH = 24;
/** Longest path (in properties) at which an `{"@id": …}` reference is read in place. */
const MAX_REFERENCE_PATH = 2;
/** Keys that are JSON-LD syntax, not properties. */
const KEYWORDS: ReadonlySet<string> = new Set(['@context', '@id', '@type', '@graph', '@language', '@vocab', '@base']);

/**
 * The values in the text of a `<script type="application/ld+json">`; none when it is not JSON even
 * after the cheap repairs real pages need: HTML comment and CDATA wrappers, raw line breaks and
 * tabs inside strings, trailing commas, several objects one after another.
 */
export function parseJsonLd(source: string): unknown[] {
  const text = source
    .trim()
    .replace(/^(?:<!--|\/\/\s*<!\[CDATA\[|\/\*\s*<!\[CDATA\[\s*\*\/|<!\[CDATA\[)\s*/, '')
    .replace(/\s*(?:-->|\/\/\s*\]\]>|\/\*\s*\]\]>\s*\*\/|\]\]>)$/, '')
    .replace(/;\s*$/, '');
  if (text === '') return [];
  const parsed = tryParse(text);
  if (parsed !== undefined) return [parsed];
  // Control characters are only allowed escaped in JSON strings; outside strings they are whitespace.
  const repaired = text.replace(/[\u0000-\u001f]+/g, ' ').replace(/,\s*([}\]])/g, '$1');
  const again = tryParse(repaired) ?? tryParse(`[${repaired.replace(/}\s*{/g, '},{')}]`);
  return again === undefined ? [] : [again];
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The facts of the page's JSON-LD blocks, block after block. Every typed object at the top (of the
 * block, of an array, of `@graph`) is a root item; so is a `mainEntity`, which pages wrap in a
 * `WebPage` (`ItemPage.mainEntity` is the product, and a learner wants it as `Product`). A node
 * referenced by `{"@id": …}` elsewhere in the page is read in place (a `@graph`'s article naming
 * its author by id), once per path to avoid cycles.
 */
export function jsonLdFacts(blocks: readonly string[]): EmbeddedFact[] {
  const values = blocks.flatMap(parseJsonLd);
  const nodes = new Map<string, JsonObject>();
  for (const value of values) indexNodes(value, nodes, 0);
  const reader = new JsonLdReader(nodes);
  for (const value of values) reader.readTop(value, 0);
  return reader.facts;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Nodes with an `@id` and something more to say than their id. */
function indexNodes(value: unknown, nodes: Map<string, JsonObject>, depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const entry of value) indexNodes(entry, nodes, depth + 1);
  } else if (isObject(value)) {
    const id = value['@id'];
    if (typeof id === 'string' && Object.keys(value).some((key) => !KEYWORDS.has(key)) && !nodes.has(id)) nodes.set(id, value);
    for (const key in value) if (key !== '@context') indexNodes(value[key], nodes, depth + 1);
  }
}

/** `@type` as a local name: the first of a list (`["Product", "Thing"]`), without its vocabulary. */
function typeOf(node: JsonObject): string | undefined {
  const type = node['@type'];
  const first = Array.isArray(type) ? (type.find((entry) => typeof entry === 'string') as string | undefined) : type;
  return typeof first === 'string' ? localName(first) : undefined;
}

class JsonLdReader {
  readonly facts: EmbeddedFact[] = [];
  private items = 0;

  constructor(private readonly nodes: ReadonlyMap<string, JsonObject>) {}

  readTop(value: unknown, depth: number): void {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      for (const entry of value) this.readTop(entry, depth + 1);
      return;
    }
    if (!isObject(value)) return;
    if (value['@graph'] !== undefined) this.readTop(value['@graph'], depth + 1);
    if (Object.keys(value).every((key) => KEYWORDS.has(key))) return;
    const item = this.items++;
    this.readNode(value, typeOf(value) ?? '', '', undefined, item, new Set(), depth);
  }

  private readNode(
    node: JsonObject,
    rootType: string,
    prefix: string,
    index: number | undefined,
    item: number,
    visiting: Set<JsonObject>,
    depth: number,
  ): void {
    if (depth > MAX_DEPTH || visiting.has(node)) return;
    visiting.add(node);
    for (const key in node) {
      if (KEYWORDS.has(key)) continue;
      const value = node[key];
      const name = localName(key);
      if (name === 'mainEntity' && prefix === '' && (isObject(value) || Array.isArray(value))) {
        this.readTop(value, depth + 1);
        continue;
      }
      this.readValue(value, rootType, prefix === '' ? name : `${prefix}.${name}`, index, item, visiting, depth + 1);
    }
    visiting.delete(node);
  }

  private readValue(
    value: unknown,
    rootType: string,
    path: string,
    index: number | undefined,
    item: number,
    visiting: Set<JsonObject>,
    depth: number,
  ): void {
    if (depth > MAX_DEPTH) return;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      const text = typeof value === 'string' ? collapseWhitespace(decodeEntities(value)) : String(value);
      if (text === '') return;
      const fact: EmbeddedFact = { source: 'json-ld', rootType, path, value: text, item };
      if (index !== undefined) fact.index = index;
      this.facts.push(fact);
    } else if (Array.isArray(value)) {
      value.forEach((entry, position) => this.readValue(entry, rootType, path, position, item, visiting, depth + 1));
    } else if (isObject(value)) {
      if (value['@value'] !== undefined) {
        this.readValue(value['@value'], rootType, path, index, item, visiting, depth + 1);
        return;
      }
      const id = value['@id'];
      // References are followed near the root only: a graph's nodes all name each other, and
      // following every chain multiplies facts nobody maps to a field.
      const follow = typeof id === 'string' && path.split('.').length <= MAX_REFERENCE_PATH;
      const referenced = follow && Object.keys(value).every((key) => KEYWORDS.has(key)) ? this.nodes.get(id) : undefined;
      this.readNode(referenced ?? value, rootType, path, index, item, visiting, depth + 1);
    }
  }
}
