import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { readBodyWithin } from '../problems/request-body';
import { RequestError, RequestErrorCode } from '../problems/request.errors';

/** Route of CSV uploads, as Fastify names it. */
const CSV_UPLOAD_ROUTE = '/uploads/job_inputs/:inputId';

/** Routes that take any body as its bytes (the Fetch endpoint forwards it to the target). */
export interface RawBodyRoutes {
  matches(routeUrl: string | undefined): boolean;
  bodyLimit: number;
}

/**
 * Hands a CSV upload's body to its route as the raw stream, unread and without the JSON body
 * limit, so the upload is parsed as it arrives and bounded by its own limit. `rawRoutes` get the
 * bytes, as for any other type; `text/csv` sent anywhere else is refused like any non-JSON body.
 */
export function installCsvUploadBody(fastify: FastifyInstance, rawRoutes: RawBodyRoutes): void {
  fastify.addContentTypeParser('text/csv', (request, payload, done) => {
    if (request.routeOptions.url === CSV_UPLOAD_ROUTE) return done(null, payload);
    if (rawRoutes.matches(request.routeOptions.url)) {
      readBodyWithin(payload, rawRoutes.bodyLimit).then(
        (body) => done(null, body),
        (error: Error) => done(error),
      );
      return;
    }
    done(
      new RequestError(
        RequestErrorCode.UnsupportedMediaType,
        'Only CSV uploads take `text/csv`; send the body as JSON with `Content-Type: application/json`.',
      ),
    );
  });
}

/**
 * Reads the rest of a refused upload and drops it, so that the client can finish sending and read
 * the answer (closing a socket with unread data may reset it before the answer is read), but at
 * most `maxBytes`: beyond that `close` is called (the caller closes the connection), so a refused
 * client cannot keep the gateway reading without bound.
 */
export function discardRest(body: Readable, maxBytes: number, close: () => void): void {
  body.unpipe();
  let read = 0;
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read <= maxBytes) return;
    body.off('data', onData);
    body.pause();
    close();
  };
  body.on('data', onData);
  body.resume();
}
