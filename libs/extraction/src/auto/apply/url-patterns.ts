/**
 * URL path templates of page types: `/`-separated segments, each literal or `*` (any one
 * segment). `/p/*` matches `/p/red-shoe` and `/p/red-shoe/`, not `/p/red-shoe/reviews`.
 */

const compiled = new Map<string, RegExp>();

/** Whether `path` (a URL's pathname) matches the template `pattern`. */
export function matchesUrlPattern(pattern: string, path: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const segments = pattern
      .split('/')
      .slice(1)
      .map((segment) => (segment === '*' ? '[^/]+' : escapeRegExp(segment)));
    regex = new RegExp(`^/${segments.join('/')}/?$`, 'i');
    compiled.set(pattern, regex);
  }
  return regex.test(path);
}

/** Path segments of a URL, decoded, without empty ones (`/a//b/` → `a`, `b`). */
export function pathSegments(url: URL): string[] {
  return url.pathname.split('/').filter((segment) => segment !== '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
