import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { EgressErrorCode } from './errors';
import { decodedBodyChunks, gunzippedWhenCompressed } from './response-body';

/** A body as undici gives it: chunks, and a destroy that the reader must call when it gives up. */
function bodyOf(data: Buffer, chunkSize = 1_000): AsyncIterable<Buffer> & { destroy(): void; destroyed: boolean } {
  const body = {
    destroyed: false,
    destroy() {
      body.destroyed = true;
    },
    async *[Symbol.asyncIterator]() {
      for (let at = 0; at < data.length; at += chunkSize) yield data.subarray(at, at + chunkSize);
    },
  };
  return body;
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

const text = Buffer.from('<urlset>' + '<url><loc>https://shop.test/p</loc></url>'.repeat(2_000) + '</urlset>');

describe(decodedBodyChunks.name, () => {
  it.each([
    ['identity', text, undefined],
    ['gzip', gzipSync(text), 'gzip'],
    ['zlib deflate', deflateSync(text), 'deflate'],
    ['raw deflate', deflateRawSync(text), 'deflate'],
    ['br', brotliCompressSync(text), 'br'],
    ['gzip then br', brotliCompressSync(gzipSync(text)), 'gzip, br'],
  ])('decodes %s as it streams', async (_name, wire, encoding) => {
    expect((await collect(decodedBodyChunks(bodyOf(wire), encoding, 10 * 1024 * 1024, undefined))).equals(text)).toBe(true);
  });

  it('passes an encoding it does not know through as received', async () => {
    const wire = Buffer.from('as sent');
    expect((await collect(decodedBodyChunks(bodyOf(wire), 'zstd', 1_000, undefined))).toString()).toBe('as sent');
  });

  it('stops a small compressed body that decodes past the cap, and destroys the stream', async () => {
    const body = bodyOf(gzipSync(Buffer.alloc(5_000_000)));
    await expect(collect(decodedBodyChunks(body, 'gzip', 1_000_000, undefined))).rejects.toMatchObject({
      code: EgressErrorCode.BodyTooLarge,
    });
    expect(body.destroyed).toBe(true);
  });

  it('refuses a body over the cap as received, or declared so, before decoding it', async () => {
    await expect(collect(decodedBodyChunks(bodyOf(text), undefined, 100, undefined))).rejects.toMatchObject({
      code: EgressErrorCode.BodyTooLarge,
    });
    await expect(collect(decodedBodyChunks(bodyOf(text), undefined, 100, '5000'))).rejects.toMatchObject({
      code: EgressErrorCode.BodyTooLarge,
    });
  });
});

describe(gunzippedWhenCompressed.name, () => {
  it('gunzips chunks that start as a gzip file and passes others through', async () => {
    expect((await collect(gunzippedWhenCompressed(bodyOf(gzipSync(text), 7), 10 * 1024 * 1024))).equals(text)).toBe(true);
    expect((await collect(gunzippedWhenCompressed(bodyOf(text), 10 * 1024 * 1024))).equals(text)).toBe(true);
  });

  it('caps the decompressed size', async () => {
    await expect(collect(gunzippedWhenCompressed(bodyOf(gzipSync(Buffer.alloc(3_000_000))), 1_000_000))).rejects.toMatchObject({
      code: EgressErrorCode.BodyTooLarge,
    });
  });
});
