import { KeyedBatches } from './keyed-batches';

describe(KeyedBatches.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const later = new Promise<void>(() => undefined); // an item that may wait, and is never needed sooner

  function setup(options: { lingerMs?: number; maxBatch?: number; fail?: boolean } = {}) {
    const runs: Array<[string, number[]]> = [];
    const batches = new KeyedBatches<string, number, string>({
      run: async (key, items) => {
        runs.push([key, [...items]]);
        if (options.fail) throw new Error('down');
        return items.map((item) => `${key}:${item}`);
      },
      lingerMs: options.lingerMs ?? 2,
      maxBatch: options.maxBatch ?? 4,
    });
    return { batches, runs };
  }

  it('answers items of one key that may wait with one run after the linger, each its own result', async () => {
    const { batches, runs } = setup();
    const answers = Promise.all([batches.add('a', 1, later), batches.add('a', 2, later), batches.add('b', 3, later)]);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([
      ['a', [1, 2]],
      ['b', [3]],
    ]);
    expect(await answers).toEqual(['a:1', 'a:2', 'b:3']);
  });

  it('sends a waiting batch as soon as one of its items is needed', async () => {
    const { batches, runs } = setup({ lingerMs: 50 });
    let needed!: () => void;
    const answered = new Promise<void>((resolve) => (needed = resolve));
    void batches.add('a', 1, later);
    const second = batches.add('a', 2, answered);
    await jest.advanceTimersByTimeAsync(10);
    expect(runs).toEqual([]);
    needed();
    await jest.advanceTimersByTimeAsync(0);
    expect(runs).toEqual([['a', [1, 2]]]);
    expect(await second).toBe('a:2');
    await jest.advanceTimersByTimeAsync(50);
    expect(runs).toHaveLength(1);
  });

  it('sends at once an item that may not wait, taking those of its key that wait along', async () => {
    const { batches, runs } = setup();
    const first = batches.add('a', 1, later);
    const urgent = batches.add('a', 2);
    expect(runs).toEqual([['a', [1, 2]]]);
    expect(await Promise.all([first, urgent])).toEqual(['a:1', 'a:2']);
    await jest.advanceTimersByTimeAsync(5);
    expect(runs).toHaveLength(1);
  });

  it('sends a full batch without waiting for the linger', async () => {
    const { batches, runs } = setup({ maxBatch: 3 });
    for (const item of [1, 2, 3, 4]) void batches.add('a', item, later);
    expect(runs).toEqual([['a', [1, 2, 3]]]);
    expect(batches.size).toBe(1);
    await jest.advanceTimersByTimeAsync(2);
    expect(runs).toEqual([
      ['a', [1, 2, 3]],
      ['a', [4]],
    ]);
  });

  it('fails every item of a batch whose run failed', async () => {
    const { batches } = setup({ fail: true });
    const answers = [batches.add('a', 1, later), batches.add('a', 2, later)].map((p) => p.catch((error: Error) => error.message));
    await jest.advanceTimersByTimeAsync(2);
    expect(await Promise.all(answers)).toEqual(['down', 'down']);
  });

  it('never waits with a linger of 0', () => {
    const { batches, runs } = setup({ lingerMs: 0 });
    void batches.add('a', 1, later);
    void batches.add('a', 2, later);
    expect(runs).toEqual([
      ['a', [1]],
      ['a', [2]],
    ]);
  });
});
