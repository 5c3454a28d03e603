import { ConcurrencyGate } from './concurrency-gate';

function headers(values: Record<string, string>): { get(name: string): string | null } {
  return { get: (name) => values[name] ?? null };
}

/** Whether `promise` settled within the current turn of microtasks. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
}

describe(ConcurrencyGate.name, () => {
  it('holds requests past the cap until one ends, in order', async () => {
    const gate = new ConcurrencyGate(2);
    const first = await gate.acquire();
    await gate.acquire();
    const third = gate.acquire();
    const fourth = gate.acquire();
    expect(await settled(third)).toBe(false);
    first();
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
    expect(gate.active).toBe(2);
  });

  it('lowers its cap to the account’s Concurrency-Limit', async () => {
    const gate = new ConcurrencyGate(5);
    gate.observe(headers({ 'concurrency-limit': '1', 'concurrency-remaining': '1' }));
    expect(gate.limit).toBe(1);
    const release = await gate.acquire();
    const next = gate.acquire();
    expect(await settled(next)).toBe(false);
    release();
    expect(await settled(next)).toBe(true);
  });

  it('waits for one of its own to end while the server says none remain', async () => {
    const gate = new ConcurrencyGate(5);
    const release = await gate.acquire();
    gate.observe(headers({ 'concurrency-limit': '5', 'concurrency-remaining': '0' }));
    const next = gate.acquire();
    expect(await settled(next)).toBe(false);
    gate.observe(headers({ 'concurrency-limit': '5', 'concurrency-remaining': '3' }));
    expect(await settled(next)).toBe(true);
    release();
  });

  it('lets a request go when none of its own is in flight, whatever the server said last', async () => {
    const gate = new ConcurrencyGate(5);
    gate.observe(headers({ 'concurrency-remaining': '0' }));
    expect(await settled(gate.acquire())).toBe(true);
  });

  it('drops a waiter whose signal aborts', async () => {
    const gate = new ConcurrencyGate(1);
    const release = await gate.acquire();
    const controller = new AbortController();
    const waiting = gate.acquire(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    release();
    expect(gate.active).toBe(0);
  });
});
