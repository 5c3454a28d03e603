/** Where the character encoding of a page was found. */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'default';

export interface DecodedPage {
  /** The page as text, without its byte order mark. */
  text: string;
  /** WHATWG name of the encoding used (`utf-8`, `windows-1252`, `shift_jis`, …). */
  encoding: string;
  source: CharsetSource;
}

/** How far into the body `<meta charset>` is looked for (the HTML prescan reads 1,024 bytes). */
const META_PRESCAN_BYTES = 1024;

const BOMS: ReadonlyArray<{ bytes: readonly number[]; encoding: string }> = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
];

/**
 * Decodes an HTML body the way a browser picks its encoding: a byte order mark, else the
 * `charset` of the Content-Type header, else `<meta charset>` or
 * `<meta http-equiv="content-type" content="…; charset=…">` in the first 1,024 bytes, else UTF-8.
 * A label this Node cannot decode is skipped, as browsers skip labels they do not know. Bytes that
 * are invalid in the chosen encoding become U+FFFD rather than failing the page.
 *
 * The BOM goes first (HTML §13.2.3.1, and what every browser does): it is evidence in the bytes
 * themselves, while a header charset is often a server default that was never true of the file.
 *
 * @param body the raw (already decompressed) body
 * @param contentType the response's Content-Type header, if any
 */
export function decodeHtml(body: Uint8Array, contentType?: string): DecodedPage {
  const { encoding, source } = detectCharset(body, contentType);
  // TextDecoder drops a BOM that matches its encoding, which is the only case a BOM is kept.
  const text = new TextDecoder(encoding).decode(body);
  return { text, encoding, source };
}

/** The encoding `decodeHtml` would use, and where it found it. */
export function detectCharset(body: Uint8Array, contentType?: string): { encoding: string; source: CharsetSource } {
  const fromBom = bomEncoding(body);
  if (fromBom) return { encoding: fromBom, source: 'bom' };
  const fromHeader = supportedEncoding(charsetParameter(contentType));
  if (fromHeader) return { encoding: fromHeader, source: 'header' };
  const fromMeta = metaEncoding(body);
  if (fromMeta) return { encoding: fromMeta, source: 'meta' };
  return { encoding: 'utf-8', source: 'default' };
}

/** The `charset` parameter of a Content-Type value (quoted or not), if present. */
export function charsetParameter(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const label = match?.[1] ?? match?.[2];
  return label ? label : undefined;
}

/**
 * The WHATWG name of an encoding label if this Node's TextDecoder supports it (Node built with
 * full ICU supports the legacy CJK and single-byte encodings; a small-ICU build does not).
 */
export function supportedEncoding(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

function bomEncoding(body: Uint8Array): string | undefined {
  for (const bom of BOMS) {
    if (bom.bytes.every((byte, i) => body[i] === byte)) return bom.encoding;
  }
  return undefined;
}

const META_TAG = /<meta(?=[\s/])[^>]*>/gi;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

/** A simplified HTML prescan (§13.2.3.2): the first meta tag that declares a usable charset. */
function metaEncoding(body: Uint8Array): string | undefined {
  // latin1 maps each byte to one char, so ASCII markup reads the same whatever the real encoding.
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, META_PRESCAN_BYTES))
    .toString('latin1')
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  for (const [tag] of head.matchAll(META_TAG)) {
    const attributes = metaAttributes(tag);
    let label = attributes.get('charset');
    if (label === undefined && attributes.get('http-equiv')?.toLowerCase() === 'content-type') {
      label = charsetInMetaContent(attributes.get('content') ?? '');
    }
    const encoding = supportedEncoding(label);
    if (!encoding) continue;
    // A page that says it is UTF-16 in ASCII-compatible markup cannot be UTF-16 (HTML §13.2.3.2).
    return encoding.startsWith('utf-16') ? 'utf-8' : encoding;
  }
  return undefined;
}

/** HTML §2.5.5 "extracting a character encoding from a meta element": `charset=` anywhere in it. */
function charsetInMetaContent(content: string): string | undefined {
  const match = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^;\s"']+))/i.exec(content);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

function metaAttributes(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of tag.slice('<meta'.length).matchAll(ATTRIBUTE)) {
    const name = match[1].toLowerCase();
    if (!attributes.has(name)) attributes.set(name, match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}
