import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** The simple-protocol message of `COMMIT`: 'Q', int32 length 11, "COMMIT\0" (how `pg` sends it). */
const COMMIT_QUERY = Buffer.from([0x51, 0, 0, 0, 11, ...Buffer.from('COMMIT\0', 'latin1')]);

/**
 * A TCP relay in front of Postgres that can lose one COMMIT's answer: once armed, the next
 * connection that sends `COMMIT` has it delivered, and when the server answers, both ends are cut
 * before the answer reaches the client. The server committed; the client saw its connection die:
 * what a `kill -9` or a failover does to the commit in flight, made deterministic.
 */
export class CommitReplyCutter {
  private server?: Server;
  private armed = 0;
  private readonly sockets = new Set<Socket>();
  /** COMMIT answers withheld so far. */
  cut = 0;

  private constructor(private readonly upstream: URL) {}

  /** Starts the relay in front of the server of `databaseUrl`. */
  static async start(databaseUrl: string): Promise<CommitReplyCutter> {
    const cutter = new CommitReplyCutter(new URL(databaseUrl));
    await cutter.listen();
    return cutter;
  }

  /** `databaseUrl` with its host and port replaced by the relay's. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String((this.server!.address() as AddressInfo).port);
    return url.toString();
  }

  /** The next `count` COMMITs (on any connection) lose their answer. */
  cutNextCommitReplies(count = 1): void {
    this.armed += count;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private listen(): Promise<void> {
    this.server = createServer((client) => this.relay(client));
    return new Promise((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  private relay(client: Socket): void {
    const server = connect(Number(this.upstream.port || 5432), this.upstream.hostname);
    this.sockets.add(client).add(server);
    let cutting = false;
    const end = () => {
      client.destroy();
      server.destroy();
      this.sockets.delete(client);
      this.sockets.delete(server);
    };
    client.on('data', (chunk: Buffer) => {
      if (this.armed > 0 && chunk.includes(COMMIT_QUERY)) {
        this.armed--;
        cutting = true;
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (!cutting) {
        client.write(chunk);
        return;
      }
      // The server answered the COMMIT: it is done. The client never hears it.
      this.cut++;
      end();
    });
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  }
}
