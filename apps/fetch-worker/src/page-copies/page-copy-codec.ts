import type { TargetPage } from '../target-fetch/fetch-engine';

/** The page's fields beside its bytes, and where each byte run ends. */
interface CopyHead extends Omit<TargetPage, 'body' | 'screenshot' | 'pdf'> {
  bytes: { body: number; screenshot?: number; pdf?: number };
  screenshot?: Omit<NonNullable<TargetPage['screenshot']>, 'data'>;
}

/**
 * A page as one message: a 4-byte length, its fields as JSON, then the body, screenshot and PDF
 * bytes as they are (base64 would add a third to every copy).
 */
export function encodePageCopy(page: TargetPage): Buffer {
  const { body, screenshot, pdf, ...fields } = page;
  const head: CopyHead = {
    ...fields,
    bytes: { body: body.length, screenshot: screenshot?.data.length, pdf: pdf?.length },
    screenshot: screenshot && { type: screenshot.type, width: screenshot.width, height: screenshot.height },
  };
  const json = Buffer.from(JSON.stringify(head), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json, body, ...(screenshot ? [screenshot.data] : []), ...(pdf ? [pdf] : [])]);
}

/** @throws Error when the bytes are not a copy this version wrote (the caller treats it as none). */
export function decodePageCopy(bytes: Uint8Array): TargetPage {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonEnd = 4 + data.readUInt32BE(0);
  const { bytes: runs, screenshot, ...fields } = JSON.parse(data.subarray(4, jsonEnd).toString('utf8')) as CopyHead;
  let at = jsonEnd;
  const take = (length: number): Buffer => {
    const run = Buffer.from(data.subarray(at, at + length));
    if (run.length !== length) throw new Error('page copy truncated');
    at += length;
    return run;
  };
  const page: TargetPage = { ...fields, body: take(runs.body) };
  if (screenshot && runs.screenshot !== undefined) page.screenshot = { ...screenshot, data: take(runs.screenshot) };
  if (runs.pdf !== undefined) page.pdf = take(runs.pdf);
  return page;
}
