/** Media types a crawl takes links from, and whose text it keeps (`output_format: html`). */
const HTML_MEDIA_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** The essence of a Content-Type (`text/html; charset=utf-8` → `text/html`), or undefined when absent. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const essence = contentType?.split(';', 1)[0].trim().toLowerCase();
  return essence ? essence : undefined;
}

/**
 * True for HTML media types, and for a missing Content-Type: servers that send none mostly send
 * HTML, so the body is read and `looksLikeHtml` decides.
 */
export function mayBeHtml(mediaType: string | undefined): boolean {
  return mediaType === undefined || HTML_MEDIA_TYPES.has(mediaType);
}

/** Sniffs an untyped body the way browsers do for the commonest HTML openings (MIME Sniffing §7.1). */
export function looksLikeHtml(body: Uint8Array): boolean {
  const start = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 512))
    .toString('latin1')
    .replace(/^\ufeff|^\xef\xbb\xbf/, '')
    .trimStart()
    .toLowerCase();
  return /^<(!doctype html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|!--)[\s>]/.test(start);
}
