import type { ParsedPage } from '../parsed-page';

/**
 * `favicon` output: the absolute URL of the page's best icon. Among `<link rel="icon">` (and
 * `shortcut icon`) the largest declared `sizes` wins (`any`, a scalable icon, beats every size;
 * no `sizes` counts as 16×16), the first on ties; without one, the largest
 * `apple-touch-icon`; without either, `/favicon.ico` of the page's origin, where browsers look.
 * `data:` icons are skipped (not a URL a client can fetch and cache).
 */
export function extractFavicon(page: ParsedPage): string {
  let best: { url: string; rank: number; size: number } | undefined;
  for (const element of page.elements('link')) {
    const rel = (element.attribs.rel ?? '').toLowerCase().split(/\s+/);
    const rank = rel.includes('icon') ? 2 : rel.includes('apple-touch-icon') || rel.includes('apple-touch-icon-precomposed') ? 1 : 0;
    if (rank === 0) continue;
    const url = page.resolve(element.attribs.href);
    if (url === undefined) continue;
    const size = declaredSize(element.attribs.sizes);
    if (best === undefined || rank > best.rank || (rank === best.rank && size > best.size)) best = { url, rank, size };
  }
  return best?.url ?? new URL('/favicon.ico', page.pageUrl).href;
}

/** The largest edge in a `sizes` attribute (`16x16 32x32`, `any`), in pixels. */
function declaredSize(sizes: string | undefined): number {
  if (sizes === undefined || sizes.trim() === '') return 16;
  let largest = 0;
  for (const token of sizes.toLowerCase().split(/\s+/)) {
    if (token === 'any') return Number.POSITIVE_INFINITY;
    const match = /^(\d+)x(\d+)$/.exec(token);
    if (match) largest = Math.max(largest, Number(match[1]), Number(match[2]));
  }
  return largest;
}
