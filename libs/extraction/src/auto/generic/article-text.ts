/** The part of a DOM node (linkedom's, the browser's) that rendering text needs. */
export interface TextNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<TextNode>;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

/** Elements whose content is a paragraph of its own. */
const PARAGRAPH_ELEMENTS: ReadonlySet<string> = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'CAPTION',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TD',
  'TH',
  'TR',
  'UL',
]);
/** Elements with no text a reader sees. */
const SKIPPED_ELEMENTS: ReadonlySet<string> = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'MATH']);

/**
 * The text of an article's content: its words in Readability's `textContent` order, one paragraph
 * per block element with a blank line between paragraphs, whitespace inside a paragraph collapsed,
 * `<br>` a space. `textContent` runs the last word of one paragraph into the first of the next
 * when the markup has no whitespace between them; this does not.
 */
export function articleText(root: TextNode): string {
  const paragraphs: string[] = [];
  let current = '';
  const flush = (): void => {
    const paragraph = current.replace(/\s+/g, ' ').trim();
    if (paragraph !== '') paragraphs.push(paragraph);
    current = '';
  };
  // An entry is a node to visit, or the end of a paragraph element whose children are done.
  const stack: Array<TextNode | null> = [root];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if (entry === null) {
      flush();
      continue;
    }
    if (entry.nodeType === TEXT_NODE) {
      current += entry.nodeValue ?? '';
      continue;
    }
    if (entry.nodeType !== ELEMENT_NODE && entry !== root) continue;
    const name = entry.nodeName.toUpperCase();
    if (SKIPPED_ELEMENTS.has(name)) continue;
    if (name === 'BR') {
      current += ' ';
      continue;
    }
    if (PARAGRAPH_ELEMENTS.has(name)) {
      flush();
      stack.push(null);
    }
    for (let i = entry.childNodes.length - 1; i >= 0; i--) stack.push(entry.childNodes[i]);
  }
  flush();
  return paragraphs.join('\n\n');
}
