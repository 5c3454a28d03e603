import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { testServerUrl, uniqueSuffix } from '@trawl/testing';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

jest.setTimeout(120_000);

describe('npm run migrate', () => {
  const name = `trawl_migrate_${uniqueSuffix()}`;
  const url = new URL(testServerUrl());
  url.pathname = `/${name}`;

  afterAll(async () => {
    const admin = new Client({ connectionString: testServerUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
  });

  it('creates the database named by DATABASE_URL and migrates it, then finds it up to date', async () => {
    if (!existsSync(join(ROOT, 'dist', 'libs', 'persistence', 'src', 'cli', 'migrate.js'))) {
      throw new Error('dist/ is missing: `make build` (or `npm run build`) first; `make test` does');
    }
    const env = { ...process.env, DATABASE_URL: url.toString() };
    const first = await run('npm', ['run', '--silent', 'migrate'], { cwd: ROOT, env });
    expect(first.stdout).toMatch(/^migrations applied: /);
    const again = await run('npm', ['run', '--silent', 'migrate'], { cwd: ROOT, env });
    expect(again.stdout).toBe('schema is up to date\n');
  });
});
