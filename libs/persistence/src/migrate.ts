import { createDataSource } from './data-source';

/** Applies every pending migration to the database at `url`; returns the names applied. */
export async function migrate(url: string): Promise<string[]> {
  const dataSource = createDataSource({ url, poolSize: 2, applicationName: 'trawl-migrate' });
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}

/** Creates the database named in `url` if the server does not have it yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const { Client } = await import('pg');
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
