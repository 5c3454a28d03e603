import type { SlotLease } from './concurrency-slots.repository';
import { PendingReleases } from './pending-releases';

const lease = (slot: number): SlotLease => ({ tenantId: 't', slot, holder: `h${slot}` });

describe(PendingReleases.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setup(lingerMs = 5, fail = false) {
    const written: SlotLease[][] = [];
    const failures: unknown[] = [];
    const state = { fail };
    const releases = new PendingReleases({
      writeAlone: async (leases) => {
        if (state.fail) throw new Error('down');
        written.push(leases);
      },
      lingerMs,
      leaseMs: 60_000,
      maxRetryMs: 1_000,
      onWriteFailed: (error) => failures.push(error),
    });
    return { releases, written, failures, state };
  }

  it('hands waiting releases to the next statement, and settles them when it is written', async () => {
    const { releases, written } = setup();
    let settled = 0;
    void releases.add(lease(1)).then(() => settled++);
    void releases.add(lease(2)).then(() => settled++);
    const batch = releases.take();
    expect(batch.leases).toEqual([lease(1), lease(2)]);
    expect(releases.size).toBe(0);
    batch.written();
    await Promise.resolve();
    expect(settled).toBe(2);
    // Nothing left for the timer to write alone.
    await jest.advanceTimersByTimeAsync(10);
    expect(written).toEqual([]);
  });

  it('writes every release that waits in one statement when no statement takes them within the linger', async () => {
    const { releases, written } = setup(5);
    const both = Promise.all([releases.add(lease(1)), releases.add(lease(2))]);
    await jest.advanceTimersByTimeAsync(4);
    expect(written).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(written).toEqual([[lease(1), lease(2)]]);
    await both;
  });

  it('keeps the releases of a failed statement for the next one', async () => {
    const { releases, written } = setup();
    void releases.add(lease(1));
    releases.take().failed();
    expect(releases.size).toBe(1);
    await jest.advanceTimersByTimeAsync(5);
    expect(written).toEqual([[lease(1)]]);
  });

  it('retries a release it could not write alone, backing off while writes fail, and reports each failure', async () => {
    const down = setup(5, true);
    void down.releases.add(lease(1));
    await jest.advanceTimersByTimeAsync(5);
    expect(down.failures).toHaveLength(1);
    expect(down.releases.size).toBe(1);
    // Retries after 10, 20, 40 ms…
    await jest.advanceTimersByTimeAsync(9);
    expect(down.failures).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(down.failures).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(20);
    expect(down.failures).toHaveLength(3);
    // …and never more than maxRetryMs (1 s) apart: 40+80+…+640 ms, then 1 s each.
    await jest.advanceTimersByTimeAsync(40 + 80 + 160 + 320 + 640);
    expect(down.failures).toHaveLength(8);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(down.failures).toHaveLength(9);
    down.state.fail = false;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(down.written).toEqual([[lease(1)]]);
    expect(down.releases.size).toBe(0);
  });

  it('drops a release its lease outlived, settling it unwritten', async () => {
    const down = setup(5, true);
    const dropped = down.releases.add(lease(1));
    await jest.advanceTimersByTimeAsync(60_000);
    expect(down.releases.take().leases).toEqual([]);
    await dropped;
    expect(down.written).toEqual([]);
  });

  it('gives a statement at most the releases asked for, oldest first', () => {
    const { releases } = setup();
    for (const slot of [1, 2, 3]) void releases.add(lease(slot));
    const first = releases.take(2);
    expect(first.leases).toEqual([lease(1), lease(2)]);
    expect(releases.size).toBe(1);
    first.failed();
    expect(releases.take().leases).toEqual([lease(1), lease(2), lease(3)]);
  });

  it('keeps to its backoff while writes fail, a linger of 0 too', async () => {
    const down = setup(0, true);
    void down.releases.add(lease(1));
    await jest.advanceTimersByTimeAsync(0);
    expect(down.failures).toHaveLength(1);
    void down.releases.add(lease(2));
    await jest.advanceTimersByTimeAsync(0);
    // Not one statement more per release: both wait for the retry.
    expect(down.failures).toHaveLength(1);
    down.state.fail = false;
    await jest.advanceTimersByTimeAsync(2);
    expect(down.written).toEqual([[lease(1), lease(2)]]);
  });

  it('resolves a flush only once a write an earlier flush started has ended', async () => {
    let finishFirst!: () => void;
    const written: SlotLease[][] = [];
    const releases = new PendingReleases({
      writeAlone: async (leases) => {
        if (written.length === 0) await new Promise<void>((resolve) => (finishFirst = resolve));
        written.push(leases);
      },
      lingerMs: 5,
      leaseMs: 60_000,
      onWriteFailed: () => undefined,
    });
    void releases.add(lease(1));
    await jest.advanceTimersByTimeAsync(5); // the timer's flush starts writing lease 1
    let flushed = false;
    const last = releases.flush().then(() => (flushed = true));
    await jest.advanceTimersByTimeAsync(10);
    expect(flushed).toBe(false);
    finishFirst();
    await last;
    expect(written).toEqual([[lease(1)]]);
  });

  it('writes each release at once with a linger of 0', async () => {
    const { releases, written } = setup(0);
    await releases.add(lease(1));
    expect(written).toEqual([[lease(1)]]);
  });
});
