/** Characters of text a page's record holds at the least (a name, a price, a few facts). */
const RECORD_TEXT = 40;

/**
 * Whether a site's pages show their data only once rendered: the rendered page holds half as much
 * visible text again as the HTML the server sent, and at least a small record's worth more (a
 * script filled an empty container). Measured on the first example; a page that a script adds a
 * little to (a cookie banner, a widget) does not count, unless the page holds next to nothing
 * else, where rendering costs little and loses nothing.
 */
export function needsRendering(served: string, rendered: string): boolean {
  const before = visibleTextLength(served);
  const after = visibleTextLength(rendered);
  return after >= before + RECORD_TEXT && after >= 1.5 * before;
}

/** Characters of text outside scripts, styles and tags, whitespace collapsed. */
export function visibleTextLength(html: string): number {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[#\w]+;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim().length;
}
