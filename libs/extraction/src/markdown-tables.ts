import type TurndownService from 'turndown';

/**
 * The slice of the DOM that turndown hands its rules (domino nodes; the repo compiles without the
 * DOM lib, so the shape is spelled out here).
 */
export interface MarkdownNode {
  nodeName: string;
  parentNode: MarkdownNode | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): MarkdownNode | null | undefined;
  closest(selector: string): MarkdownNode | null | undefined;
  rows?: ArrayLike<MarkdownNode & { cells: ArrayLike<MarkdownNode> }>;
}

const asNode = (node: unknown): MarkdownNode => node as MarkdownNode;
const simpleTables = new WeakMap<MarkdownNode, boolean>();
const tableWidths = new WeakMap<MarkdownNode, number>();

/**
 * GFM tables for simple tables: no table nested inside and no `rowspan`, which a GFM grid cannot
 * show. Other tables fall back to turndown's default (each cell a paragraph), which loses the grid
 * but keeps every word. The first row is the header row (GFM needs one), as in the `tables` output.
 * `colspan` adds empty cells so every row has the table's width.
 */
export function gfmTables(service: TurndownService): void {
  service.addRule('tableCell', {
    filter: (node) => (node.nodeName === 'TH' || node.nodeName === 'TD') && inSimpleTable(asNode(node)),
    replacement: (content, node) => {
      const text = content
        .trim()
        .replace(/\s*\n+\s*/g, ' ')
        .replace(/\|/g, '\\|');
      const extra = Math.max(0, colspan(asNode(node)) - 1);
      return ` ${text} |${'  |'.repeat(extra)}`;
    },
  });
  service.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && inSimpleTable(asNode(node)),
    replacement: (content, node) => {
      const row = asNode(node) as MarkdownNode & { cells: ArrayLike<MarkdownNode> };
      const table = row.closest('table');
      if (!table) return content;
      const width = tableWidth(table);
      const missing = Math.max(0, width - rowWidth(row));
      const line = `\n|${content}${'  |'.repeat(missing)}`;
      const first = table.rows !== undefined && table.rows.length > 0 && table.rows[0] === row;
      return first ? `${line}\n|${' --- |'.repeat(width)}` : line;
    },
  });
  service.addRule('table', {
    filter: (node) => node.nodeName === 'TABLE' && isSimpleTable(asNode(node)),
    replacement: (content) => `\n\n${content.replace(/^\n+|\n+$/g, '')}\n\n`,
  });
  // Row groups only hold rows; their own spacing would break the table apart.
  service.addRule('tableSection', {
    filter: (node) => ['THEAD', 'TBODY', 'TFOOT'].includes(node.nodeName) && inSimpleTable(asNode(node)),
    replacement: (content) => content,
  });
  service.addRule('tableCaption', {
    filter: (node) => node.nodeName === 'CAPTION' && inSimpleTable(asNode(node)),
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  });
}

function inSimpleTable(node: MarkdownNode): boolean {
  const table = node.closest('table');
  return !!table && isSimpleTable(table);
}

function isSimpleTable(table: MarkdownNode): boolean {
  let simple = simpleTables.get(table);
  if (simple === undefined) {
    simple =
      // domino answers undefined, not null, for no match.
      !table.querySelector('table') && !table.querySelector('[rowspan]:not([rowspan="1"])') && (table.rows?.length ?? 0) > 0;
    simpleTables.set(table, simple);
  }
  return simple;
}

function tableWidth(table: MarkdownNode): number {
  let width = tableWidths.get(table);
  if (width === undefined) {
    width = 1;
    const rows = table.rows ?? [];
    for (let i = 0; i < rows.length; i++) width = Math.max(width, rowWidth(rows[i]));
    tableWidths.set(table, width);
  }
  return width;
}

function rowWidth(row: { cells: ArrayLike<MarkdownNode> }): number {
  let width = 0;
  for (let i = 0; i < row.cells.length; i++) width += colspan(row.cells[i]);
  return width;
}

/** Clamped like the `tables` output: a hostile `colspan` must not produce megabytes of pipes. */
function colspan(cell: MarkdownNode): number {
  const parsed = Number.parseInt(cell.getAttribute('colspan') ?? '1', 10);
  return Number.isFinite(parsed) && parsed >= 1 ? Math.min(parsed, 100) : 1;
}
