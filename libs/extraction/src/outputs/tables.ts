import type { Element } from 'domhandler';
import { childElements, textOf } from '../dom';
import type { ParsedPage } from '../parsed-page';

/** One table of the `tables` output. */
export interface TableOutput {
  /** Column names: the header row's cell texts (may be `""`). */
  headers: string[];
  /** Body rows, each as many cells as `headers` (padded with `""`). */
  rows: string[][];
}

const ROW_GROUPS: ReadonlySet<string> = new Set(['thead', 'tbody', 'tfoot']);
const ROW: ReadonlySet<string> = new Set(['tr']);
const CELLS: ReadonlySet<string> = new Set(['td', 'th']);
/** Spans past these are clamped: a hostile `colspan=99999` must not allocate a huge grid. */
const MAX_COLSPAN = 100;
const MAX_ROWSPAN = 500;

interface Row {
  cells: string[];
  /** Every cell of the row is a `<th>`, or the row is in `<thead>`. */
  header: boolean;
  /** Columns and rows each cell spans, clamped. */
  spans: Array<{ col: number; row: number }>;
}

/**
 * `tables` output: every `<table>` of the page (nested ones too, each on its own) with at least
 * one row. The header row is the last row of `<thead>`, else the first row when all its cells are
 * `<th>`, else the first row whatever it holds; the other rows (`<tfoot>` last) are `rows`. Cell
 * text is whitespace-collapsed; `colspan` repeats a cell's text over the columns it spans and
 * `rowspan` down the rows it spans, so every row lines up with `headers`.
 */
export function extractTables(page: ParsedPage): TableOutput[] {
  const tables: TableOutput[] = [];
  for (const table of page.elements('table')) {
    const rows = tableRows(table);
    if (rows.length === 0) continue;
    const grid = layOut(rows);
    const width = Math.max(...grid.map((cells) => cells.length));
    const padded = grid.map((cells) => [...cells, ...Array<string>(width - cells.length).fill('')]);
    // Header rows come first (tableRows); the last of them names the columns.
    const headerIndex = Math.max(0, rows.filter((row) => row.header).length - 1);
    const headers = padded[headerIndex];
    tables.push({ headers, rows: padded.filter((_, index) => index > headerIndex) });
  }
  return tables;
}

/** The rows of this table only (not of tables nested in its cells): head first, then body, foot last. */
function tableRows(table: Element): Row[] {
  const head: Row[] = [];
  const body: Row[] = [];
  const foot: Row[] = [];
  for (const child of childElements(table)) {
    if (child.name === 'tr') body.push(rowOf(child, false));
    else if (ROW_GROUPS.has(child.name)) {
      const target = child.name === 'thead' ? head : child.name === 'tfoot' ? foot : body;
      for (const tr of childElements(child, ROW)) target.push(rowOf(tr, child.name === 'thead'));
    }
  }
  // A first body row of <th> only is a header row as well (tables without <thead>).
  if (head.length === 0 && body.length > 0 && body[0].header) {
    return [body[0], ...body.slice(1).map(notHeader), ...foot.map(notHeader)];
  }
  return [...head, ...body.map(notHeader), ...foot.map(notHeader)];
}

function notHeader(row: Row): Row {
  return { ...row, header: false };
}

function rowOf(tr: Element, inHead: boolean): Row {
  const cells = childElements(tr, CELLS);
  return {
    cells: cells.map((cell) => textOf(cell)),
    header: inHead || (cells.length > 0 && cells.every((cell) => cell.name === 'th')),
    spans: cells.map((cell) => ({
      col: span(cell.attribs.colspan, MAX_COLSPAN),
      row: span(cell.attribs.rowspan, MAX_ROWSPAN),
    })),
  };
}

function span(value: string | undefined, max: number): number {
  const parsed = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(parsed) && parsed >= 1 ? Math.min(parsed, max) : 1;
}

/** Places cells in a grid as HTML's table model does (HTML §4.9.12), filling spanned slots. */
function layOut(rows: Row[]): string[][] {
  const grid: string[][] = rows.map(() => []);
  rows.forEach((row, y) => {
    let x = 0;
    row.cells.forEach((text, index) => {
      while (grid[y][x] !== undefined) x++;
      const { col, row: down } = row.spans[index];
      for (let dy = 0; dy < down && y + dy < rows.length; dy++) {
        for (let dx = 0; dx < col; dx++) grid[y + dy][x + dx] = text;
      }
      x += col;
    });
  });
  // Slots no cell covers (a short row beside a rowspan) are holes in sparse arrays: make them "".
  return grid.map((cells) => Array.from(cells, (cell) => cell ?? ''));
}
