import { AdaptiveFetcher, type AttemptOutcome } from './adaptive-fetcher';
import type { DomainTierMemory } from './domain-tier-memory';
import { StealthError, StealthErrorCode } from './stealth.errors';
import { stealthDomainOf, tiersFrom, type FetchTier } from './tiers';

const OK_HTML = `<html><body><p>${'Plenty of real content here. '.repeat(20)}</p></body></html>`;
const JS_SHELL = '<html><body><div id="root"></div><noscript>Enable JavaScript</noscript><script src="/a.js"></script></body></html>';

class MemoryTiers implements DomainTierMemory {
  readonly store = new Map<string, FetchTier>();
  readonly writes: [string, FetchTier][] = [];
  async recall(domain: string): Promise<FetchTier | undefined> {
    return this.store.get(domain);
  }
  async remember(domain: string, tier: FetchTier): Promise<void> {
    this.writes.push([domain, tier]);
    this.store.set(domain, tier);
  }
}

/** A site that answers each tier as told; the result records the tier that produced it. */
function site(answers: Partial<Record<FetchTier, { status?: number; html?: string }>>) {
  const tried: FetchTier[] = [];
  const attempt = async (tier: FetchTier): Promise<AttemptOutcome<string>> => {
    tried.push(tier);
    const answer = answers[tier] ?? { status: 403 };
    return { result: `answer of ${tier}`, page: { status: answer.status ?? 200, contentType: 'text/html', html: answer.html ?? OK_HTML } };
  };
  return { tried, attempt };
}

describe(AdaptiveFetcher.name, () => {
  describe('fetch', () => {
    it('stops at basic when basic is not blocked, and writes nothing', async () => {
      const memory = new MemoryTiers();
      const { tried, attempt } = site({ basic: {} });
      const answer = await new AdaptiveFetcher({ memory }).fetch('shop.test', attempt);
      expect(answer).toEqual({ result: 'answer of basic', tier: 'basic', blocked: [] });
      expect(tried).toEqual(['basic']);
      expect(memory.writes).toEqual([]);
    });

    it('escalates basic → js_render for a page empty without JavaScript and remembers js_render', async () => {
      const memory = new MemoryTiers();
      const { tried, attempt } = site({ basic: { html: JS_SHELL }, js_render: {} });
      const answer = await new AdaptiveFetcher({ memory }).fetch('shop.test', attempt);
      expect(answer.tier).toBe('js_render');
      expect(answer.result).toBe('answer of js_render');
      expect(answer.blocked).toEqual([{ tier: 'basic', reason: 'needs_javascript', status: 200 }]);
      expect(tried).toEqual(['basic', 'js_render']);
      expect(memory.writes).toEqual([['shop.test', 'js_render']]);
    });

    it('tries all four tiers in cost order for a site that needs both', async () => {
      const memory = new MemoryTiers();
      const { tried, attempt } = site({ premium: { html: JS_SHELL }, premium_js_render: {} });
      const answer = await new AdaptiveFetcher({ memory }).fetch('shop.test', attempt);
      expect(tried).toEqual(['basic', 'js_render', 'premium', 'premium_js_render']);
      expect(answer.tier).toBe('premium_js_render');
      expect(answer.blocked.map((b) => [b.tier, b.reason])).toEqual([
        ['basic', 'status'],
        ['js_render', 'status'],
        ['premium', 'needs_javascript'],
      ]);
      expect(memory.store.get('shop.test')).toBe('premium_js_render');
    });

    it('starts at the remembered tier, and does not rewrite it when it still works', async () => {
      const memory = new MemoryTiers();
      memory.store.set('shop.test', 'premium');
      const { tried, attempt } = site({ basic: {}, premium: {} });
      const answer = await new AdaptiveFetcher({ memory }).fetch('shop.test', attempt);
      expect(tried).toEqual(['premium']);
      expect(answer.tier).toBe('premium');
      expect(memory.writes).toEqual([]);
    });

    it('escalates from the remembered tier when it fails later, never below it', async () => {
      const memory = new MemoryTiers();
      memory.store.set('shop.test', 'js_render');
      const { tried, attempt } = site({ basic: {}, premium: {} });
      const answer = await new AdaptiveFetcher({ memory }).fetch('shop.test', attempt);
      expect(tried).toEqual(['js_render', 'premium']);
      expect(answer.tier).toBe('premium');
      expect(memory.store.get('shop.test')).toBe('premium');
    });

    it('starts at the floor, and a floor without escalation teaches nothing', async () => {
      const memory = new MemoryTiers();
      const { tried, attempt } = site({ basic: {}, premium: {} });
      const answer = await new AdaptiveFetcher({ memory }).fetch('shop.test', attempt, { floor: 'premium' });
      expect(tried).toEqual(['premium']);
      expect(answer.tier).toBe('premium');
      expect(memory.writes).toEqual([]);
    });

    it('tries only the available tiers', async () => {
      const memory = new MemoryTiers();
      const { tried, attempt } = site({ premium: {} });
      const error = await new AdaptiveFetcher({ memory })
        .fetch('shop.test', attempt, { available: ['basic', 'js_render'] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StealthError);
      expect(tried).toEqual(['basic', 'js_render']);
    });

    it('forgets a remembered tier that is no longer available', async () => {
      const memory = new MemoryTiers();
      memory.store.set('shop.test', 'premium');
      const { tried, attempt } = site({ js_render: {} });
      const answer = await new AdaptiveFetcher({ memory }).fetch('shop.test', attempt, { available: ['basic', 'js_render'] });
      expect(answer.tier).toBe('js_render');
      expect(tried).toEqual(['basic', 'js_render']);
      expect(memory.store.get('shop.test')).toBe('js_render');
    });

    it('throws all_tiers_blocked without trying anything when no tier at the floor is available', async () => {
      const { tried, attempt } = site({});
      const error = await new AdaptiveFetcher({ memory: new MemoryTiers() })
        .fetch('shop.test', attempt, { floor: 'premium', available: ['basic', 'js_render'] })
        .catch((e: unknown) => e);
      expect((error as StealthError).code).toBe(StealthErrorCode.AllTiersBlocked);
      expect((error as StealthError).message).toBe('shop.test: no available tier at or above premium');
      expect(tried).toEqual([]);
    });

    it('throws all_tiers_blocked with every attempt and the last result when no tier passes', async () => {
      const memory = new MemoryTiers();
      const { tried, attempt } = site({ premium_js_render: { html: '<html><head><title>Just a moment...</title></head></html>' } });
      const error = await new AdaptiveFetcher({ memory }).fetch('shop.test', attempt).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StealthError);
      const stealth = error as StealthError<string>;
      expect(stealth.code).toBe(StealthErrorCode.AllTiersBlocked);
      expect(stealth.attempts.map((a) => a.reason)).toEqual(['status', 'status', 'status', 'challenge']);
      expect(stealth.lastResult).toBe('answer of premium_js_render');
      expect(stealth.message).toBe(
        'shop.test blocked every tier tried (basic: 403, js_render: 403, premium: 403, premium_js_render: challenge)',
      );
      expect(tried).toHaveLength(4);
      expect(memory.writes).toEqual([]);
    });

    it('ends at once, without escalating, when an attempt throws', async () => {
      const memory = new MemoryTiers();
      const tried: FetchTier[] = [];
      const failure = new Error('connection refused');
      const error = await new AdaptiveFetcher({ memory })
        .fetch('shop.test', async (tier) => {
          tried.push(tier);
          throw failure;
        })
        .catch((e: unknown) => e);
      expect(error).toBe(failure);
      expect(tried).toEqual(['basic']);
    });

    it('stops between attempts once the signal aborts', async () => {
      const controller = new AbortController();
      const { tried, attempt } = site({});
      const stopping = async (tier: FetchTier) => {
        const outcome = await attempt(tier);
        controller.abort(new Error('caller left'));
        return outcome;
      };
      const error = await new AdaptiveFetcher({ memory: new MemoryTiers() })
        .fetch('shop.test', stopping, { signal: controller.signal })
        .catch((e: unknown) => e);
      expect((error as Error).message).toBe('caller left');
      expect(tried).toEqual(['basic']);
    });

    it('starts at basic and still answers when the shared memory is down', async () => {
      const errors: unknown[] = [];
      const broken: DomainTierMemory = {
        recall: () => Promise.reject(new Error('nats down')),
        remember: () => Promise.reject(new Error('nats down')),
      };
      const { tried, attempt } = site({ js_render: {} });
      const answer = await new AdaptiveFetcher({ memory: broken, onMemoryError: (e) => errors.push(e) }).fetch('shop.test', attempt);
      expect(answer.tier).toBe('js_render');
      expect(tried).toEqual(['basic', 'js_render']);
      expect(errors).toHaveLength(2);
    });
  });
});

describe('tiersFrom', () => {
  it('lists the tiers from the higher of memory and floor', () => {
    expect(tiersFrom(undefined)).toEqual(['basic', 'js_render', 'premium', 'premium_js_render']);
    expect(tiersFrom('premium')).toEqual(['premium', 'premium_js_render']);
    expect(tiersFrom('js_render', 'premium')).toEqual(['premium', 'premium_js_render']);
    expect(tiersFrom('premium_js_render', 'premium')).toEqual(['premium_js_render']);
  });
});

describe('stealthDomainOf', () => {
  it.each([
    ['https://www.shop.co.uk/a', 'shop.co.uk'],
    ['http://needs-js.test:8080/', 'needs-js.test'],
    ['https://alice.github.io/x', 'alice.github.io'],
    ['http://93.184.216.34/', '93.184.216.34'],
    ['https://docs.alice.github.io/x', 'alice.github.io'],
    ['http://[2001:db8::1]:80/', '[2001:db8::1]'],
  ])('keys %s under %s', (url, domain) => {
    expect(stealthDomainOf(url)).toBe(domain);
  });
});
