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
});
