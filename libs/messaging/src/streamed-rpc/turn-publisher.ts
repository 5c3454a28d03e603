/**
 * Publishes asked for during one turn of the event loop, sent together at its end (`setImmediate`).
 * nats.js writes to its socket what one microtask gathered, so a publish made alone in its turn is
 * a socket write of its own; on loopback a write also does the receiver's TCP work, and on these
 * machines one NATS message alone in its turn costs about ten times the CPU of one of ten sent
 * together (bench/README.md, "Fetch overhead"). Requests and answers of different calls that are
 * ready in the same turn (read in one poll of the sockets) then leave in one write. The order of
 * publishes is kept; a publish that throws (a closed connection) is told to its `failed`.
 */
export class TurnPublisher {
  private queued: Array<{ send: () => void; failed: (error: unknown) => void }> = [];
  private scheduled = false;

  publish(send: () => void, failed: (error: unknown) => void): void {
    this.queued.push({ send, failed });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const queued = this.queued;
    this.queued = [];
    this.scheduled = false;
    for (const { send, failed } of queued) {
      try {
        send();
      } catch (error) {
        failed(error);
      }
    }
  }
}
