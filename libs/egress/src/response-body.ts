import { pipeline, Readable } from 'node:stream';
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

type StreamDecoder = () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | zlib.InflateRaw;

const STREAM_DECODERS = new Map<string, StreamDecoder>([
  ['gzip', () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })],
  ['x-gzip', () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })],
  // Raw deflate is told apart from zlib-wrapped by the first chunk (see decodeBody).
  ['deflate', () => zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH })],
  ['br', () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })],
]);

/**
 * The body as it arrives, decoded (`content-encoding` gzip, deflate, br) chunk by chunk, for a
 * reader that parses as it goes (a 50 MB sitemap) instead of holding the whole body. Both the bytes
 * received and the bytes decoded are capped at `maxBytes`; the stream (and so the socket) is
 * destroyed as soon as either passes it. An encoding we do not know is passed through as received.
 *
 * @throws EgressError `BodyTooLarge` from the iteration, when either count passes `maxBytes`.
 */
export async function* decodedBodyChunks(
  body: AsyncIterable<Buffer> & { destroy(): void },
  contentEncoding: string | undefined,
  maxBytes: number,
  declaredLength: string | undefined,
): AsyncGenerator<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) throw tooLarge(body, maxBytes);
  const codings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');
  const known = codings.every((coding) => STREAM_DECODERS.has(coding));
  let received = 0;
  const capped = async function* (): AsyncGenerator<Buffer> {
    for await (const chunk of body) {
      received += chunk.length;
      if (received > maxBytes) throw tooLarge(body, maxBytes);
      yield chunk;
    }
  };
  if (!known || codings.length === 0) {
    yield* capped();
    return;
  }
  // Applied in the order listed, so undone in reverse.
  let decoded: AsyncIterable<Buffer> = capped();
  for (const coding of [...codings].reverse())
    decoded = throughDecoder(decoded, coding === 'deflate' ? undefined : STREAM_DECODERS.get(coding)!);
  let produced = 0;
  for await (const chunk of decoded) {
    produced += chunk.length;
    if (produced > maxBytes) {
      body.destroy();
      throw new EgressError(EgressErrorCode.BodyTooLarge, `The decompressed response body is larger than ${maxBytes} bytes`);
    }
    yield chunk;
  }
}

/**
 * Pipes `source` through a zlib decoder (for deflate, zlib-wrapped or raw as the first chunk says),
 * yielding what it decodes. An error of the source or the decoder ends the iteration with it.
 */
async function* throughDecoder(source: AsyncIterable<Buffer>, create: StreamDecoder | undefined): AsyncGenerator<Buffer> {
  const peeked = await peek(source);
  if (!peeked) return;
  const { first, all } = peeked;
  const decoder = create
    ? create()
    : hasZlibHeader(first)
      ? zlib.createInflate(zlibStreamOptions)
      : zlib.createInflateRaw(zlibStreamOptions);
  // pipeline destroys the decoder with the first error of either side, which ends the loop below with it.
  const output = pipeline(Readable.from(all, { objectMode: false }), decoder, () => undefined);
  for await (const chunk of output) yield chunk as Buffer;
}

const zlibStreamOptions: zlib.ZlibOptions = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

/**
 * `chunks`, gunzipped when they start as a gzip file does (a `sitemap.xml.gz` served as
 * `application/gzip`, with no `content-encoding`), the decoded size capped at `maxBytes`.
 *
 * @throws EgressError `BodyTooLarge` from the iteration when the decoded size passes `maxBytes`.
 */
export async function* gunzippedWhenCompressed(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  const peeked = await peek(chunks);
  if (!peeked) return;
  const { first, all } = peeked;
  if (!(first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b)) {
    yield* all;
    return;
  }
  let produced = 0;
  for await (const chunk of throughDecoder(all, STREAM_DECODERS.get('gzip'))) {
    produced += chunk.length;
    if (produced > maxBytes) {
      throw new EgressError(EgressErrorCode.BodyTooLarge, `The decompressed file is larger than ${maxBytes} bytes`);
    }
    yield chunk;
  }
}

/** The first chunk of `chunks`, and all of them (the first again included); undefined when there is none. */
async function peek(chunks: AsyncIterable<Buffer>): Promise<{ first: Buffer; all: AsyncGenerator<Buffer> } | undefined> {
  const source = chunks[Symbol.asyncIterator]();
  const head = await source.next();
  if (head.done === true) return undefined;
  const first = head.value;
  const all = async function* (): AsyncGenerator<Buffer> {
    yield first;
    for (let next = await source.next(); next.done !== true; next = await source.next()) yield next.value;
  };
  return { first, all: all() };
}
