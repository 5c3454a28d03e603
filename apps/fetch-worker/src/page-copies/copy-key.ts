import { createHash } from 'node:crypto';
import type { FetchRequestV1 } from '@trawl/contracts';

/**
 * Who reads the copy: a crawl reads only HTML bodies, so its copies are never a Fetch request's,
 * whose copies hold every body.
 */
export type CopyScope = 'fetch' | 'crawl';

/**
 * What makes two requests the same for a kept copy: the scope, method, URL, the headers sent to the target and
 * every option but `max_age`, as a hash (43 characters, safe in a NATS subject). Options are read
 * in a canonical order, so `{a, b}` and `{b, a}` are one request; an option that changes only the
 * answer's shape (a css_extractor) still makes another copy: over-keying loses hits, never serves
 * a wrong answer.
 */
export function copyKeyOf(request: Pick<FetchRequestV1, 'method' | 'url' | 'headers' | 'options'>, scope: CopyScope = 'fetch'): string {
  const { max_age: _maxAge, ...options } = request.options;
  const canonical = JSON.stringify([scope, request.method, request.url, sorted(request.headers), sorted(options)]);
  return createHash('sha256').update(canonical).digest('base64url');
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}
