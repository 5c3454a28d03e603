import { DataSource } from 'typeorm';
import { resilientPoolOptions } from './connection-loss';
import { Init1763798400000 } from './migrations/1763798400000-init';
import { FetchAccounts1763884800000 } from './migrations/1763884800000-fetch-accounts';
import { Webhooks1764000000010 } from './migrations/1764000000010-webhooks';
import { Schedules1764000000020 } from './migrations/1764000000020-schedules';
import { BatchJobs1764000000030 } from './migrations/1764000000030-batch-jobs';
import { BatchRunCost1764000000040 } from './migrations/1764000000040-batch-run-cost';
import { BatchApi1764000000050 } from './migrations/1764000000050-batch-api';
import { BatchFiles1764000000060 } from './migrations/1764000000060-batch-files';
import { FetchHotPath1764000000070 } from './migrations/1764000000070-fetch-hot-path';
import { SealedCaptchaSolverKey1764000000080 } from './migrations/1764000000080-sealed-captcha-solver-key';
import { RunTaskBodyLz41764000000090 } from './migrations/1764000000090-run-task-body-lz4';
import { PutBatchTasks1764000000100 } from './migrations/1764000000100-put-batch-tasks';
import { LedgerCost1764000000110 } from './migrations/1764000000110-ledger-cost';
import { TenantAdmin1764000000130 } from './migrations/1764000000130-tenant-admin';
import { Extract1764000000140 } from './migrations/1764000000140-extract';
import { RunTaskAttempts1764000000150 } from './migrations/1764000000150-run-task-attempts';
import { CsvDialect1764000000160 } from './migrations/1764000000160-csv-dialect';
import { RateWindowGrants1764000000170 } from './migrations/1764000000170-rate-window-grants';
import { CrawlSitemapsRobots1764000000180 } from './migrations/1764000000180-crawl-sitemaps-robots';
import { CrawlUrlFates1764000000190 } from './migrations/1764000000190-crawl-url-fates';
import { CrawlMaxAge1764000000200 } from './migrations/1764000000200-crawl-max-age';
import { RunTaskFreshness1764000000210 } from './migrations/1764000000210-run-task-freshness';

/** Every migration, in order. Migrations run by `make migrate` (and a Helm pre-upgrade Job), never at pod start. */
export const MIGRATIONS = [
  Init1763798400000,
  FetchAccounts1763884800000,
  Webhooks1764000000010,
  Schedules1764000000020,
  BatchJobs1764000000030,
  BatchRunCost1764000000040,
  BatchApi1764000000050,
  BatchFiles1764000000060,
  FetchHotPath1764000000070,
  SealedCaptchaSolverKey1764000000080,
  RunTaskBodyLz41764000000090,
  PutBatchTasks1764000000100,
  LedgerCost1764000000110,
  TenantAdmin1764000000130,
  Extract1764000000140,
  RunTaskAttempts1764000000150,
  CsvDialect1764000000160,
  RateWindowGrants1764000000170,
  CrawlSitemapsRobots1764000000180,
  CrawlUrlFates1764000000190,
  CrawlMaxAge1764000000200,
  RunTaskFreshness1764000000210,
];

export interface DataSourceOptions {
  url: string;
  /** Connections in this process's pool (default 10). */
  poolSize?: number;
  applicationName?: string;
}

/**
 * TypeORM DataSource for Trawl's schema. `synchronize` is never on: the schema is migrations only.
 * Its pool survives the database going away (`resilientPoolOptions`): queries fail while it is
 * down and work again once it is back, without a restart of the process.
 */
export function createDataSource(options: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    synchronize: false,
    migrationsRun: false,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    entities: [],
    logging: false,
    applicationName: options.applicationName ?? 'trawl',
    extra: { ...resilientPoolOptions(), max: options.poolSize ?? 10 },
  });
}
