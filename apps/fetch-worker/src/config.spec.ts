import { ConfigError, loadConfig } from '@trawl/config';
import { fetchWorkerConfigSchema } from './config';

describe('fetchWorkerConfigSchema', () => {
  it('defaults to port 8082, 64 pages at once, 30 s per page and 10 MiB bodies', () => {
    expect(loadConfig(fetchWorkerConfigSchema, {})).toMatchObject({
      PORT: 8082,
      WORKER_CONCURRENCY: 64,
      PAGE_TIMEOUT_MS: 30_000,
      MAX_BODY_BYTES: 10 * 1024 * 1024,
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_PREFIX: 'trawl',
      EGRESS_HOST_MAP: '',
      FETCH_CONCURRENCY: 32,
      CAPTCHA_POLL_INTERVAL_MS: 5_000,
      BROWSERS: 2,
      PAGES_PER_BROWSER: 4,
      CHROMIUM_PATH: '/usr/bin/chromium',
    });
  });

  it('spills at most 32 MiB of bodies at once by default, and reads the budget in bytes', () => {
    expect(loadConfig(fetchWorkerConfigSchema, {}).SPILL_BUDGET_BYTES).toBe(32 * 1024 * 1024);
    expect(loadConfig(fetchWorkerConfigSchema, { SPILL_BUDGET_BYTES: String(64 * 1024 * 1024) }).SPILL_BUDGET_BYTES).toBe(64 * 1024 * 1024);
    expect(() => loadConfig(fetchWorkerConfigSchema, { SPILL_BUDGET_BYTES: '1000' })).toThrow(/SPILL_BUDGET_BYTES/);
  });

  it('lets a result wait 5 ms for company by default, 0 for none, and refuses a negative wait', () => {
    expect(loadConfig(fetchWorkerConfigSchema, {}).RESULT_LINGER_MS).toBe(5);
    expect(loadConfig(fetchWorkerConfigSchema, { RESULT_LINGER_MS: '0' }).RESULT_LINGER_MS).toBe(0);
    expect(() => loadConfig(fetchWorkerConfigSchema, { RESULT_LINGER_MS: '-1' })).toThrow(/RESULT_LINGER_MS/);
  });

  it("lets a batch task's result wait 2 ms for company by default, apart from a crawl page's", () => {
    expect(loadConfig(fetchWorkerConfigSchema, {}).BATCH_RESULT_LINGER_MS).toBe(2);
    expect(loadConfig(fetchWorkerConfigSchema, { BATCH_RESULT_LINGER_MS: '0', RESULT_LINGER_MS: '9' })).toMatchObject({
      BATCH_RESULT_LINGER_MS: 0,
      RESULT_LINGER_MS: 9,
    });
    expect(() => loadConfig(fetchWorkerConfigSchema, { BATCH_RESULT_LINGER_MS: '-1' })).toThrow(/BATCH_RESULT_LINGER_MS/);
  });

  it('holds no database URL: workers never connect to Postgres', () => {
    expect(loadConfig(fetchWorkerConfigSchema, { DATABASE_URL: 'postgres://x@db/trawl' })).not.toHaveProperty('DATABASE_URL');
  });

  it('reads the numbers from the environment', () => {
    const config = loadConfig(fetchWorkerConfigSchema, {
      WORKER_CONCURRENCY: '8',
      PAGE_TIMEOUT_MS: '5000',
      MAX_BODY_BYTES: '2048',
      PORT: '9000',
    });
    expect(config).toMatchObject({ WORKER_CONCURRENCY: 8, PAGE_TIMEOUT_MS: 5_000, MAX_BODY_BYTES: 2048, PORT: 9000 });
  });

  it('fails naming each bad variable', () => {
    const load = () =>
      loadConfig(fetchWorkerConfigSchema, { WORKER_CONCURRENCY: '0', PAGE_TIMEOUT_MS: 'soon', EGRESS_HOST_MAP: 'shop.test' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/WORKER_CONCURRENCY/);
    expect(load).toThrow(/PAGE_TIMEOUT_MS/);
    expect(load).toThrow(/EGRESS_HOST_MAP: Egress host map entry "shop.test" is not hostname=ip/);
  });
});
