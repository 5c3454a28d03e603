import { MessagingError } from './messaging.errors';
import { streamConfig } from './provisioning';

describe('provisioning', () => {
  describe(streamConfig.name, () => {
    const spec = { name: 'S', subjects: ['s.>'], retention: 'workqueue' as const };

    it('maps replicas to num_replicas, 1 by default', () => {
      expect(streamConfig(spec).num_replicas).toBe(1);
      expect(streamConfig({ ...spec, replicas: 3 }).num_replicas).toBe(3);
    });

    it.each([0, 6, 1.5])('refuses %s replicas', (replicas) => {
      expect(() => streamConfig({ ...spec, replicas })).toThrow(MessagingError);
    });
  });
});
