import type { Readable } from 'node:stream';
import { RequestError, RequestErrorCode } from './request.errors';

/**
 * Reads a request body whole, refusing it (`payload_too_large`) as soon as it passes `limit` bytes,
 * and at once when its declared `content-length` does: bodies that bypass Fastify's own limit (a
 * raw stream, the proxy-mode server) are bounded the same way.
 */
export async function readBodyWithin(body: Readable, limit: number, declaredLength?: string): Promise<Buffer> {
  const tooLarge = () => new RequestError(RequestErrorCode.PayloadTooLarge, `The request body is larger than ${limit} bytes.`);
  const declared = Number(declaredLength);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
