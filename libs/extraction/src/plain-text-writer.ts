import { BLOCK_ELEMENTS, isHiddenByMarkup, NON_TEXT_ELEMENTS } from './dom';

/** Elements separated from their neighbours by a blank line rather than a line break. */
const PARAGRAPH_ELEMENTS: ReadonlySet<string> = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'table',
  'ul',
  'ol',
  'dl',
  'hr',
  'figure',
  'section',
  'article',
]);

/** Marks a table-cell boundary inside a line until the line is collapsed (a private-use code point). */
const CELL_MARK = '\uE000';
const CELL_MARK_RUN = / ?\uE000 ?/g;

/**
 * Turns a stream of open/text/close events into readable text: block elements on lines of their
 * own, a blank line around paragraphs, headings, lists and tables, table cells separated by tabs,
 * `<pre>` kept as written, whitespace elsewhere collapsed, and nothing from scripts, styles,
 * `<head>` or elements hidden by their markup. Both the streaming parser (`toPlainText`) and the
 * DOM walk (`ParsedPage.visibleText`) drive it, so the two read a page the same way.
 *
 * Events must be balanced (every open has its close), as htmlparser2 and a DOM walk guarantee.
 */
export class PlainTextWriter {
  private readonly chunks: string[] = [];
  private line = '';
  private pendingBreak: 1 | 2 = 1;
  /** Depth inside a subtree left out (scripts, hidden elements); 0 outside. */
  private skipDepth = 0;
  private preDepth = 0;
  private preText = '';

  open(name: string, attribs: Readonly<Record<string, string | undefined>>): void {
    if (this.skipDepth > 0) {
      this.skipDepth++;
      return;
    }
    if (NON_TEXT_ELEMENTS.has(name) || isHiddenByMarkup(attribs)) {
      this.skipDepth = 1;
      return;
    }
    if (this.preDepth > 0) {
      if (name === 'br') this.preText += '\n';
      if (name === 'pre') this.preDepth++;
      return;
    }
    if (name === 'td' || name === 'th') {
      if (this.line.trim() !== '') this.line += CELL_MARK;
      return;
    }
    if (BLOCK_ELEMENTS.has(name)) this.breakLine(PARAGRAPH_ELEMENTS.has(name) ? 2 : 1);
    if (name === 'pre') {
      this.preDepth = 1;
      this.preText = '';
    }
  }

  text(data: string): void {
    if (this.skipDepth > 0) return;
    if (this.preDepth > 0) this.preText += data;
    else this.line += data;
  }

  close(name: string): void {
    if (this.skipDepth > 0) {
      this.skipDepth--;
      return;
    }
    if (this.preDepth > 0) {
      if (name !== 'pre') return;
      this.preDepth--;
      if (this.preDepth > 0) return;
      // A newline right after <pre> is not content (HTML §13.2.6.4.7); trailing space is layout.
      this.emit(this.preText.replace(/^\r?\n/, '').trimEnd());
      this.pendingBreak = 2;
      return;
    }
    if (name === 'td' || name === 'th') return;
    if (BLOCK_ELEMENTS.has(name)) this.breakLine(PARAGRAPH_ELEMENTS.has(name) ? 2 : 1);
  }

  /** The text so far, lines joined with `\n`, paragraphs separated by one blank line. */
  finish(): string {
    this.breakLine(1);
    return this.chunks.join('');
  }

  private breakLine(kind: 1 | 2): void {
    const text = this.line.replace(/\s+/g, ' ').replace(CELL_MARK_RUN, '\t').trim();
    this.line = '';
    if (text !== '') this.emit(text);
    if (kind > this.pendingBreak) this.pendingBreak = kind;
  }

  private emit(text: string): void {
    if (text === '') return;
    if (this.chunks.length > 0) this.chunks.push(this.pendingBreak === 2 ? '\n\n' : '\n');
    this.chunks.push(text);
    this.pendingBreak = 1;
  }
}
