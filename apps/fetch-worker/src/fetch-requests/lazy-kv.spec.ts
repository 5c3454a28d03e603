import { domainTierMemoryOnFirstUse, sessionBindingsOnFirstUse } from './lazy-kv';

describe(domainTierMemoryOnFirstUse.name, () => {
  it('opens nothing until used, then once, and again after a failed open', async () => {
    let opens = 0;
    const memory = domainTierMemoryOnFirstUse(async () => {
      opens++;
      if (opens === 1) throw new Error('NATS down');
      return { recall: async () => 'premium' as const, remember: async () => undefined };
    });
    expect(opens).toBe(0);
    await expect(memory.recall('shop.test')).rejects.toThrow('NATS down');
    expect(await memory.recall('shop.test')).toBe('premium');
    await memory.remember('shop.test', 'basic');
    expect(opens).toBe(2);
  });
});

describe(sessionBindingsOnFirstUse.name, () => {
  it('opens on the first bind and passes calls through', async () => {
    let opens = 0;
    const bound: string[] = [];
    const bindings = sessionBindingsOnFirstUse(async () => {
      opens++;
      return {
        bind: async (key, candidate) => (bound.push(`${key}=${candidate}`), candidate),
        rebind: async (key, id) => void bound.push(`${key}:=${id}`),
      };
    });
    expect(opens).toBe(0);
    expect(await bindings.bind('t.1.premium', 'p#1')).toBe('p#1');
    await bindings.rebind('t.1.premium', 'p#2');
    expect({ opens, bound }).toEqual({ opens: 1, bound: ['t.1.premium=p#1', 't.1.premium:=p#2'] });
  });
});
