import type { SlotLease } from './concurrency-slots.repository';
import { PendingReleases } from './pending-releases';

const lease = (slot: number): SlotLease => ({ tenantId: 't', slot, holder: `h${slot}` });

describe(PendingReleases.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setup(lingerMs = 5, fail = false) {
    const written: SlotLease[][] = [];
    const failures: unknown[] = [];
    const releases = new PendingReleases(
      async (leases) => {
        if (fail) throw new Error('down');
        written.push(leases);
      },
      lingerMs,
      (error) => failures.push(error),
    );
    return { releases, written, failures };
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

  it('retries a release it could not write alone, and reports the failure', async () => {
    const down = setup(5, true);
    void down.releases.add(lease(1));
    await jest.advanceTimersByTimeAsync(5);
    expect(down.failures).toHaveLength(1);
    expect(down.releases.size).toBe(1);
    await jest.advanceTimersByTimeAsync(5);
    expect(down.failures).toHaveLength(2);
  });

  it('writes each release at once with a linger of 0', async () => {
    const { releases, written } = setup(0);
    await releases.add(lease(1));
    expect(written).toEqual([[lease(1)]]);
  });
});
