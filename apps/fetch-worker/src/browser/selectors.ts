/**
 * A selector as clients write it (fetch-details "js_instructions": XPath when it starts with `//`)
 * turned into puppeteer's syntax: `xpath/` + the expression for XPath (also `(//…)[1]` and `./…`
 * forms), CSS unchanged.
 */
export function toPuppeteerSelector(selector: string): string {
  const trimmed = selector.trim();
  if (trimmed.startsWith('//') || trimmed.startsWith('(//') || trimmed.startsWith('./')) return `xpath/${trimmed}`;
  return trimmed;
}
