import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { EgressError, EgressErrorCode } from './errors';

/**
 * Reads a response body, destroying the stream (and so the socket) as soon as it passes
 * `maxBytes`: a hostile server must not make a worker buffer gigabytes.
 */
export async function readCappedBody(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
  declaredLength: string | undefined,
): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) throw tooLarge(body, maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(body, maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(body: { destroy(): void }, maxBytes: number): EgressError {
  body.destroy();
  return new EgressError(EgressErrorCode.BodyTooLarge, `The response body is larger than ${maxBytes} bytes`);
}

const gunzip = promisify<zlib.InputType, zlib.ZlibOptions, Buffer>(zlib.gunzip);
const inflate = promisify<zlib.InputType, zlib.ZlibOptions, Buffer>(zlib.inflate);
const inflateRaw = promisify<zlib.InputType, zlib.ZlibOptions, Buffer>(zlib.inflateRaw);
const brotli = promisify<zlib.InputType, zlib.BrotliOptions, Buffer>(zlib.brotliDecompress);

type Decoder = (data: Buffer, maxOutputLength: number) => Promise<Buffer>;

// Browsers accept bodies cut short after the last complete block, hence the sync-flush finish.
const zlibOptions = (maxOutputLength: number): zlib.ZlibOptions => ({
  maxOutputLength,
  finishFlush: zlib.constants.Z_SYNC_FLUSH,
});

const DECODERS = new Map<string, Decoder>([
  ['gzip', (data, max) => gunzip(data, zlibOptions(max))],
  ['x-gzip', (data, max) => gunzip(data, zlibOptions(max))],
  // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate; the zlib header tells.
  ['deflate', (data, max) => (hasZlibHeader(data) ? inflate : inflateRaw)(data, zlibOptions(max))],
  ['br', (data, max) => brotli(data, { maxOutputLength: max, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })],
]);

function hasZlibHeader(data: Buffer): boolean {
  return data.length >= 2 && (data[0] & 0x0f) === 8 && ((data[0] << 8) | data[1]) % 31 === 0;
}

/**
 * Undoes `content-encoding` (gzip, deflate, br, in reverse order of application), capping the
 * decoded size at `maxBytes` so a small compressed bomb cannot expand without limit. A body in an
 * encoding we do not know, or that fails to decode, is returned as received.
 *
 * @throws EgressError `BodyTooLarge` when the decoded body passes `maxBytes`.
 */
export async function decodeBody(raw: Buffer, contentEncoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const codings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  const decoders: Decoder[] = [];
  for (const coding of codings) {
    const decoder = DECODERS.get(coding);
    if (decoder === undefined) return raw;
    decoders.push(decoder);
  }
  if (raw.length === 0) return raw;
  let data = raw;
  try {
    for (const decoder of decoders) data = await decoder(data, maxBytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      const message = `The decompressed response body is larger than ${maxBytes} bytes`;
      throw new EgressError(EgressErrorCode.BodyTooLarge, message);
    }
    return raw;
  }
  return data;
}
