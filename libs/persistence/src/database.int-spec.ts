import { createTestDatabase, TestDatabase } from '@trawl/testing';
import { createDataSource } from './data-source';
import { Database } from './database';

describe(Database.name, () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database(await createDataSource({ url: database.url, poolSize: 2 }).initialize());
  });
  afterAll(async () => {
    await db?.dataSource.destroy();
    await database?.drop();
  });

  describe('transaction', () => {
    const setting = (rows: { synchronous_commit: string }[]) => rows[0].synchronous_commit;

    it('waits for the disk at commit by default, and not with durable: false, for that transaction only', async () => {
      expect(setting(await db.transaction((sql) => sql.query('SHOW synchronous_commit')))).toBe('on');
      expect(setting(await db.transaction((sql) => sql.query('SHOW synchronous_commit'), { durable: false }))).toBe('off');
      // The pooled connection that ran it is back to the server's setting.
      const after = await Promise.all([1, 2].map(() => db.query<{ synchronous_commit: string }>('SHOW synchronous_commit')));
      expect(after.map(setting)).toEqual(['on', 'on']);
    });

    it('commits what a non-durable transaction wrote', async () => {
      await db.query('CREATE TABLE IF NOT EXISTS durability_probe (n int)');
      await db.transaction((sql) => sql.query('INSERT INTO durability_probe VALUES (1)'), { durable: false });
      expect(await db.query('SELECT n FROM durability_probe')).toEqual([{ n: 1 }]);
    });
  });
});
