import { CommitReplyCutter, createTestDatabase, TestDatabase } from '@trawl/testing';
import { isConnectionLoss } from './connection-loss';
import { createDataSource } from './data-source';
import { CommitOutcomeUnknownError, Database } from './database';

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

    it('says the outcome is unknown, with what the work returned, when the connection dies at COMMIT', async () => {
      const cutter = await CommitReplyCutter.start(database.url);
      const relayed = new Database(await createDataSource({ url: cutter.urlFor(database.url), poolSize: 1 }).initialize());
      try {
        await db.query('CREATE TABLE IF NOT EXISTS commit_probe (n int)');
        cutter.cutNextCommitReplies(1);
        const failed = await relayed
          .transaction((sql) => sql.query<{ n: number }>('INSERT INTO commit_probe VALUES (7) RETURNING n'))
          .catch((e: unknown) => e);
        expect(failed).toBeInstanceOf(CommitOutcomeUnknownError);
        expect((failed as CommitOutcomeUnknownError<{ n: number }[]>).result).toEqual([{ n: 7 }]);
        expect(isConnectionLoss(failed)).toBe(true);
        expect(cutter.cut).toBe(1);
        // The server did commit: only its answer was lost.
        expect(await db.query('SELECT n FROM commit_probe')).toEqual([{ n: 7 }]);
        // A connection lost before COMMIT is an ordinary connection loss: nothing was committed.
        const early = await relayed
          .transaction(async (sql) => {
            await sql.query('SELECT pg_terminate_backend(pg_backend_pid())');
          })
          .catch((e: unknown) => e);
        expect(early).not.toBeInstanceOf(CommitOutcomeUnknownError);
        expect(isConnectionLoss(early)).toBe(true);
      } finally {
        await relayed.dataSource.destroy();
        await cutter.close();
      }
    });

    it('commits what a non-durable transaction wrote', async () => {
      await db.query('CREATE TABLE IF NOT EXISTS durability_probe (n int)');
      await db.transaction((sql) => sql.query('INSERT INTO durability_probe VALUES (1)'), { durable: false });
      expect(await db.query('SELECT n FROM durability_probe')).toEqual([{ n: 1 }]);
    });
  });
});
