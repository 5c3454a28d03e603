import { textOf } from '../dom';
import type { ParsedPage } from '../parsed-page';

/** `headings` output: heading texts by level, each list in document order. */
export interface HeadingsOutput {
  h1: string[];
  h2: string[];
  h3: string[];
  h4: string[];
  h5: string[];
  h6: string[];
}

/**
 * `headings` output: the text of every `h1`–`h6` (whitespace collapsed), grouped by level, in
 * document order. All six keys are always present (empty lists included) so clients read a fixed
 * shape; empty headings are left out, repeated ones kept.
 */
export function extractHeadings(page: ParsedPage): HeadingsOutput {
  const headings: HeadingsOutput = { h1: [], h2: [], h3: [], h4: [], h5: [], h6: [] };
  for (const element of page.elements('h1', 'h2', 'h3', 'h4', 'h5', 'h6')) {
    const text = textOf(element);
    if (text !== '') headings[element.name as keyof HeadingsOutput].push(text);
  }
  return headings;
}
