import { CoordinatorHarness } from './support/coordinator-harness';
import { createCrawl, createTenant, pageResult, readCrawl } from './support/crawl-factories';

let h: CoordinatorHarness;

beforeAll(async () => {
  h = await CoordinatorHarness.start();
});

afterAll(async () => {
  await h?.close();
});

describe('PageResultService', () => {
  describe('failCrawl', () => {
    it('ends a crawl whose results cannot be applied as failed/internal_error, once, and leaves others alone', async () => {
      const tenantId = await createTenant(h.db);
      const broken = await createCrawl(h.db, tenantId);
      const healthy = await createCrawl(h.db, tenantId);
      const [seed] = await h.claim(broken.id, 1);
      // A result Postgres cannot store (a NUL character in a text column) fails its transaction.
      const poison = pageResult(broken.id, seed, { override: { links: ['https://site.test/a\u0000'] } });
      await expect(h.results.apply([poison])).rejects.toThrow();

      await h.results.failCrawl(broken.id, 'The crawl stopped on a service-side failure.');
      await h.results.failCrawl(broken.id, 'again');

      // Failed once: the second call finds it ended and changes nothing.
      expect(await readCrawl(h.db, broken.id)).toMatchObject({
        status: 'failed',
        errorCode: 'internal_error',
        errorDetail: 'The crawl stopped on a service-side failure.',
      });
      expect(await readCrawl(h.db, healthy.id)).toMatchObject({ status: 'running' });
    });
  });
});
