import { createTestDatabase, TestDatabase } from '@trawl/testing';
import { createDataSource } from './data-source';
import { Database } from './database';
import { knownMigrations, migrationLabel, SchemaReadiness } from './schema-readiness';

describe(SchemaReadiness.name, () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    const dataSource = await createDataSource({ url: database.url, poolSize: 2 }).initialize();
    db = new Database(dataSource);
  });
  afterAll(async () => {
    await db?.dataSource.destroy();
    await database?.drop();
  });

  it('is not ready, naming what to run, on a database migrated to all but the last migration; ready once it is', async () => {
    const schema = () => new SchemaReadiness(db, { cacheMs: 0 });
    expect(await schema().check()).toMatchObject({
      ok: false,
      reason: expect.stringContaining(`${knownMigrations().length} migrations pending`),
    });

    // Every migration but the last, as a build one migration ahead of the database finds it.
    const all = db.dataSource.migrations;
    const last = all[all.length - 1];
    (db.dataSource as unknown as { migrations: unknown[] }).migrations = all.slice(0, -1);
    await db.dataSource.runMigrations({ transaction: 'each' });
    expect(await schema().check()).toEqual({
      ok: false,
      reason: `database schema is behind: 1 migration pending (newest: ${migrationLabel(knownMigrations().at(-1)!)}); run the migration job`,
    });

    (db.dataSource as unknown as { migrations: unknown[] }).migrations = [...all.slice(0, -1), last];
    await db.dataSource.runMigrations({ transaction: 'each' });
    expect(await schema().check()).toEqual({ ok: true });
  }, 60_000);
});
