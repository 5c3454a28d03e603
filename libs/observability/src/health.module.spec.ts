import { readinessReport } from './health.module';

describe('HealthModule', () => {
  describe(readinessReport.name, () => {
    it('is ready when every check is ok, with no reasons', async () => {
      expect(
        await readinessReport([
          { name: 'nats', check: () => true },
          { name: 'schema', check: async () => ({ ok: true }) },
        ]),
      ).toEqual({
        status: 'ready',
        checks: { nats: true, schema: true },
        reasons: {},
      });
    });

    it('is not ready when a check is not ok, and gives the reasons checks gave', async () => {
      const reason = 'database schema is behind: 1 migration pending (newest: 1764000000110-ledger-cost); run the migration job';
      const report = await readinessReport([
        { name: 'postgres', check: async () => false },
        { name: 'schema', check: async () => ({ ok: false, reason }) },
        { name: 'nats', check: () => true },
      ]);
      expect(report).toEqual({ status: 'not_ready', checks: { postgres: false, schema: false, nats: true }, reasons: { schema: reason } });
    });

    it('counts a check that throws as not ok, with its message as the reason', async () => {
      const report = await readinessReport([
        {
          name: 'nats',
          check: () => {
            throw new Error('connection closed');
          },
        },
      ]);
      expect(report).toEqual({ status: 'not_ready', checks: { nats: false }, reasons: { nats: 'connection closed' } });
    });
  });
});
