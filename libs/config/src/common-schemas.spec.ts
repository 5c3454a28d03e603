import { baseConfigSchema } from './common-schemas';
import { ConfigError, loadConfig } from './load-config';

describe('baseConfigSchema', () => {
  describe('NATS_STREAM_REPLICAS', () => {
    it('is 1 by default and takes 1 to 5', () => {
      expect(loadConfig(baseConfigSchema, {}).NATS_STREAM_REPLICAS).toBe(1);
      expect(loadConfig(baseConfigSchema, { NATS_STREAM_REPLICAS: '3' }).NATS_STREAM_REPLICAS).toBe(3);
    });

    it.each(['0', '6', '2.5', 'three'])('refuses %s, naming the variable', (value) => {
      expect(() => loadConfig(baseConfigSchema, { NATS_STREAM_REPLICAS: value })).toThrow(ConfigError);
      expect(() => loadConfig(baseConfigSchema, { NATS_STREAM_REPLICAS: value })).toThrow(/NATS_STREAM_REPLICAS/);
    });
  });

  describe('ALLOCATION_SITE_PRETENURING', () => {
    it('is off by default and on only when asked', () => {
      expect(loadConfig(baseConfigSchema, {}).ALLOCATION_SITE_PRETENURING).toBe(false);
      expect(loadConfig(baseConfigSchema, { ALLOCATION_SITE_PRETENURING: 'true' }).ALLOCATION_SITE_PRETENURING).toBe(true);
      expect(loadConfig(baseConfigSchema, { ALLOCATION_SITE_PRETENURING: 'false' }).ALLOCATION_SITE_PRETENURING).toBe(false);
    });
  });

  describe('HEAP_GROWTH_PERCENT', () => {
    it('is 50 by default, 0 hands the choice back to V8, and at most 400', () => {
      expect(loadConfig(baseConfigSchema, {}).HEAP_GROWTH_PERCENT).toBe(50);
      expect(loadConfig(baseConfigSchema, { HEAP_GROWTH_PERCENT: '0' }).HEAP_GROWTH_PERCENT).toBe(0);
      expect(() => loadConfig(baseConfigSchema, { HEAP_GROWTH_PERCENT: '401' })).toThrow(/HEAP_GROWTH_PERCENT/);
      expect(() => loadConfig(baseConfigSchema, { HEAP_GROWTH_PERCENT: '-1' })).toThrow(/HEAP_GROWTH_PERCENT/);
    });
  });
});
