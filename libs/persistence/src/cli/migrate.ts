import { z } from 'zod';
import { loadConfig } from '@trawl/config';
import { ensureDatabase, migrate } from '../migrate';

const config = loadConfig(z.object({ DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/trawl') }));

async function main(): Promise<void> {
  await ensureDatabase(config.DATABASE_URL);
  const applied = await migrate(config.DATABASE_URL);
  process.stdout.write(applied.length ? `migrations applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
