import { knownMigrations, migrationLabel, SchemaReadiness } from './schema-readiness';
import type { Sql } from './database';

function sqlAnswering(rows: () => { name: string }[] | Error): Sql & { calls: number } {
  const sql = {
    calls: 0,
    async query<T>(): Promise<T[]> {
      sql.calls++;
      const answer = rows();
      if (answer instanceof Error) throw answer;
      return answer as T[];
    },
    prepared: async <T>(): Promise<T[]> => [],
  };
  return sql;
}

describe(migrationLabel.name, () => {
  it.each([
    ['LedgerCost1764000000110', '1764000000110-ledger-cost'],
    ['RunTaskBodyLz41764000000090', '1764000000090-run-task-body-lz4'],
    ['Init1763798400000', '1763798400000-init'],
  ])('names %s as its file, %s', (name, label) => {
    expect(migrationLabel(name)).toBe(label);
  });
});

describe(SchemaReadiness.name, () => {
  const known = ['Init1763798400000', 'Webhooks1764000000010', 'LedgerCost1764000000110'];

  it('knows every migration of the build, in order', () => {
    const names = knownMigrations();
    expect(names[0]).toBe('Init1763798400000');
    expect([...names].sort((a, b) => a.slice(-13).localeCompare(b.slice(-13)))).toEqual(names);
  });

  it('is ok when every known migration is applied (newer ones too)', async () => {
    const sql = sqlAnswering(() => [...known, 'Later1799999999999'].map((name) => ({ name })));
    expect(await new SchemaReadiness(sql, { known }).check()).toEqual({ ok: true });
  });

  it('says how many migrations are pending and the newest, and what to run', async () => {
    const sql = sqlAnswering(() => [{ name: 'Init1763798400000' }]);
    expect(await new SchemaReadiness(sql, { known }).check()).toEqual({
      ok: false,
      reason: 'database schema is behind: 2 migrations pending (newest: 1764000000110-ledger-cost); run the migration job',
    });
  });

  it('asks the database at most once per cacheMs', async () => {
    let now = 0;
    const sql = sqlAnswering(() => known.map((name) => ({ name })));
    const schema = new SchemaReadiness(sql, { known, cacheMs: 5_000, now: () => now });
    await Promise.all([schema.check(), schema.check()]);
    now = 4_999;
    await schema.check();
    expect(sql.calls).toBe(1);
    now = 5_000;
    await schema.check();
    expect(sql.calls).toBe(2);
  });

  it('keeps its last answer while the database is unreachable', async () => {
    let now = 0;
    let down = false;
    const sql = sqlAnswering(() =>
      down ? Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) : known.map((name) => ({ name })),
    );
    const schema = new SchemaReadiness(sql, { known, cacheMs: 10, now: () => now });
    expect(await schema.check()).toEqual({ ok: true });
    down = true;
    now = 100;
    expect(await schema.check()).toEqual({ ok: true });
  });

  it('counts every migration pending when the migrations table does not exist', async () => {
    const sql = sqlAnswering(() => Object.assign(new Error('relation "schema_migrations" does not exist'), { code: '42P01' }));
    expect(await new SchemaReadiness(sql, { known }).pending()).toEqual(known);
  });
});
