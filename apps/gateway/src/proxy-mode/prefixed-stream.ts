import { Duplex } from 'node:stream';

/**
 * `socket` as a Duplex that first yields `prefix`: bytes already read off the socket to tell TLS
 * from plain HTTP. Needed because `TLSSocket` and `http.Server` read a `net.Socket` through its
 * native handle, past anything `unshift` put back; a generic Duplex they read through JavaScript.
 */
export function prefixedStream(socket: Duplex, prefix: Buffer): Duplex {
  const stream = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, encoding, callback) {
      socket.write(chunk, encoding, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy(error ?? undefined);
      callback(error);
    },
  });
  if (prefix.length > 0) stream.push(prefix);
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.once('end', () => stream.push(null));
  socket.once('error', (error) => stream.destroy(error));
  socket.once('close', () => stream.destroy());
  return stream;
}
