import { ConfigError, loadConfig } from '@trawl/config';
import { schedulerConfigSchema } from './config';

describe('schedulerConfigSchema', () => {
  it('has defaults for the schedule engine', () => {
    expect(loadConfig(schedulerConfigSchema, {})).toMatchObject({
      SCHEDULER_LEASE_TTL_MS: 15_000,
      SCHEDULER_RENEW_INTERVAL_MS: 5_000,
      SCHEDULE_POLL_INTERVAL_MS: 1_000,
      SCHEDULE_MISSED_GRACE_MS: 3_600_000,
      SCHEDULE_BATCH: 100,
    });
  });

  it('refuses a renewal interval over half the lease, naming the variable', () => {
    expect(() => loadConfig(schedulerConfigSchema, { SCHEDULER_LEASE_TTL_MS: '10000', SCHEDULER_RENEW_INTERVAL_MS: '6000' })).toThrow(
      expect.objectContaining({ issues: [expect.stringMatching(/^SCHEDULER_RENEW_INTERVAL_MS: /)] }) as ConfigError,
    );
  });
});
