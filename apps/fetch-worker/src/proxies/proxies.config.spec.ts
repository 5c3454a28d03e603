import { z } from 'zod';
import { proxyConfigShape } from './proxies.config';

const schema = z.object(proxyConfigShape);

describe('proxyConfigShape', () => {
  it('defaults to no pool, a 6-hour tier memory and a 5-second cache of it per worker', () => {
    expect(schema.parse({})).toEqual({ PROXY_POOLS: '', STEALTH_TIER_TTL_MS: 6 * 60 * 60_000, STEALTH_TIER_CACHE_MS: 5_000 });
  });

  it('accepts valid pools and a TTL from the environment', () => {
    const parsed = schema.parse({ PROXY_POOLS: 'premium.us=http://u:p@us:8000', STEALTH_TIER_TTL_MS: '600000' });
    expect(parsed.STEALTH_TIER_TTL_MS).toBe(600_000);
  });

  it('fails naming PROXY_POOLS, without the password, for a bad pool', () => {
    const result = schema.safeParse({ PROXY_POOLS: 'premium=ftp://u:hunter2@p:21' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].path).toEqual(['PROXY_POOLS']);
    expect(JSON.stringify(result.error?.issues)).not.toContain('hunter2');
  });
});
