import { decodeHtml } from './charset';
import { looksLikeHtml, mayBeHtml, mediaTypeOf } from './media-type';

/** What reading a page as text needs of it. */
export interface TextSource {
  contentType?: string;
  /** The body as received (decompressed). */
  body: Buffer;
  /** The document as text when the engine has it already (a browser's rendered DOM). */
  html?: string;
}

/**
 * Decoded bodies by page: block detection, the CAPTCHA check, the answer and a crawl's verdict
 * each read the text of the same page object.
 */
const decodedText = new WeakMap<TextSource, string>();

/** The page as text: the rendered DOM when there is one, else the body decoded from its charset (once per page). */
export function pageText(page: TextSource): string {
  if (page.html !== undefined) return page.html;
  let text = decodedText.get(page);
  if (text === undefined) {
    text = decodeHtml(page.body, page.contentType).text;
    decodedText.set(page, text);
  }
  return text;
}

/** True when the page is HTML (rendered, typed as HTML, or untyped and sniffed as HTML). */
export function isHtmlPage(page: TextSource): boolean {
  if (page.html !== undefined) return true;
  const mediaType = mediaTypeOf(page.contentType);
  return mayBeHtml(mediaType) && (mediaType !== undefined || looksLikeHtml(page.body));
}
