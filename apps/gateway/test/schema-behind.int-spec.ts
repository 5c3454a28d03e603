import { knownMigrations, migrate } from '@trawl/persistence';
import { createTestDatabase, TestDatabase, waitFor } from '@trawl/testing';
import { startTestGateway, TestGateway } from './gateway-harness';

/**
 * Services never migrate at start (ARCHITECTURE.md §3): the real gateway, started on a database no
 * migration has touched, boots, creates nothing, and says on `/readyz` that its schema is behind and
 * what to run; once the migration job has run, it becomes ready without a restart.
 */
describe('Gateway on a database whose schema is behind (integration)', () => {
  let db: TestDatabase;
  let gateway: TestGateway;

  beforeAll(async () => {
    db = await createTestDatabase('trawl_behind');
    gateway = await startTestGateway({}, { database: db });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await db?.drop();
  });

  async function tables(): Promise<string[]> {
    const { rows } = await gateway.sql.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    return rows.map((row) => row.name);
  }

  it('reports not-ready with the pending migrations, creates no table, and turns ready once migrated', async () => {
    const behind = await gateway.request('GET', '/readyz');
    expect(behind.status).toBe(503);
    expect(behind.body.checks).toMatchObject({ postgres: true, schema: false });
    expect(behind.body.reasons.schema).toMatch(/database schema is behind: \d+ migrations pending .*run the migration job/);
    expect(behind.body.reasons.schema).toContain(`${knownMigrations().length} migrations pending`);
    // Starting (and probing) the gateway migrated nothing.
    expect(await tables()).toEqual([]);

    expect((await migrate(db.url)).length).toBe(knownMigrations().length);
    expect(await tables()).toEqual(expect.arrayContaining(['schema_migrations', 'tenants']));
    // The schema check reuses its answer for 5 s: ready within that and a few probes more, no restart.
    const ready = await waitFor(
      async () => {
        const answer = await gateway.request('GET', '/readyz');
        return answer.status === 200 && answer;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: '/readyz 200 after the migration' },
    );
    expect(ready.body.checks).toMatchObject({ postgres: true, nats: true, schema: true });
  }, 30_000);
});
