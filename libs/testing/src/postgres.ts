import { Client, Pool } from 'pg';
import { migrate, type Sql } from '@trawl/persistence';
import { uniqueSuffix } from './unique';

/** The server tests create their databases on: `TEST_DATABASE_URL`, else the loopback default. */
export function testServerUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export interface TestDatabase {
  /** Connection string of the new, empty database. */
  url: string;
  name: string;
  /** Drops the database (and only it). Safe to call twice. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database with a unique name on `serverUrl` (default `testServerUrl()`, a
 * suite's own server otherwise); the caller drops it.
 */
export async function createTestDatabase(prefix = 'trawl_test', serverUrl = testServerUrl()): Promise<TestDatabase> {
  const name = `${prefix}_${uniqueSuffix()}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A unique database with Trawl's schema migrated, for integration tests. Migrating takes a moment,
 * so suites create one per file (beforeAll) and isolate tests by tenant.
 */
export async function createMigratedDatabase(serverUrl = testServerUrl()): Promise<TestDatabase> {
  const db = await createTestDatabase('trawl_test', serverUrl);
  await migrate(db.url);
  return db;
}

/**
 * A `pg` pool for a test's own queries. A database dropped `WITH (FORCE)` at teardown (or a slow
 * suite whose timed-out test still holds a connection) ends its connections with 57P01; unheard,
 * that 'error' event fails whichever test is running, so the pool and its clients listen for it.
 */
export function testPool(connectionString: string, max = 2): Pool {
  const pool = new Pool({ connectionString, max });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** `Sql` on a test pool, for repositories and helpers that take one; `pool` may be a getter (a pool made in `beforeAll`). */
export function sqlOn(pool: Pool | (() => Pool)): Sql {
  const current = typeof pool === 'function' ? pool : () => pool;
  return {
    query: async <T>(text: string, params: unknown[] = []) => (await current().query(text, params)).rows as T[],
    prepared: async <T>(name: string, text: string, params: unknown[] = []) =>
      (await current().query({ name, text, values: params })).rows as T[],
  };
}
