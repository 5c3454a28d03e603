import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Fetch API's coordination state becomes UNLOGGED: rate windows, concurrency slots and client
 * address health are rewritten on every request, and a logged write makes each of those commits
 * wait for a WAL flush (measured 3–6 ms apiece on a busy disk, three of them per request). None of
 * it is a record: after a Postgres crash the tables come back empty, which frees every slot (the
 * requests still in flight may briefly exceed the limit), restarts the rate windows and lifts
 * blocks. Unlogged tables are not replicated to standbys either: a failover does the same.
 */
export class FetchHotPath1764000000070 implements MigrationInterface {
  name = 'FetchHotPath1764000000070';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE fetch_rate_windows SET UNLOGGED`);
    await q.query(`ALTER TABLE fetch_slots SET UNLOGGED`);
    await q.query(`ALTER TABLE client_address_health SET UNLOGGED`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE client_address_health SET LOGGED`);
    await q.query(`ALTER TABLE fetch_slots SET LOGGED`);
    await q.query(`ALTER TABLE fetch_rate_windows SET LOGGED`);
  }
}
