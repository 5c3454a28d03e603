import {
  BATCH_TASK_METHODS,
  CONTENT_STATUSES,
  CRAWL_STATUSES,
  CRAWL_STOP_REASONS,
  FRONTIER_STATES,
  JOB_INGEST_STATES,
  PREPARATION_PAGE_STATES,
  PREPARED_DOMAIN_STATUSES,
  JOB_STATUSES,
  JOB_TYPES,
  RUN_KINDS,
  RUN_STATUSES,
  RUN_TASK_STATES,
  SCHEDULE_STATES,
  SIGNING_KEY_STATUSES,
  SITEMAP_MODES,
  SUBSCRIPTION_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
} from '@trawl/contracts';
import { JOB_EXPORT_FORMATS, JOB_INPUT_STATES } from '@trawl/contracts/http';
import { SCHEDULE_FIRING_OUTCOMES } from '@trawl/scheduling';
import { createMigratedDatabase, testPool, type TestDatabase } from '@trawl/testing';
import type { Pool } from 'pg';
import { CRAWL_CONTENTS_COLUMNS, CRAWL_CONTENTS_NULLABLE_COLUMNS } from './crawl-contents';
import { CRAWL_FRONTIER_COLUMNS } from './crawl-frontier';
import { CRAWL_SKIPPED_URLS_COLUMNS, SKIPPED_URL_REASONS } from './crawl-skipped-urls';
import { CRAWLS_COLUMNS } from './crawls';
import { EXTRACT_DOMAINS_COLUMNS } from './extract-domains';
import { JOB_EXPORTS_COLUMNS, JOB_EXPORTS_NULLABLE_COLUMNS } from './job-exports';
import { JOB_INPUT_ROWS_COLUMNS, JOB_INPUT_ROWS_NULLABLE_COLUMNS } from './job-input-rows';
import { JOB_INPUTS_COLUMNS, JOB_INPUTS_NULLABLE_COLUMNS } from './job-inputs';
import { JOB_RUNS_COLUMNS } from './job-runs';
import { JOB_SCHEDULES_COLUMNS, JOB_SCHEDULES_NULLABLE_COLUMNS } from './job-schedules';
import { JOB_TASKS_COLUMNS } from './job-tasks';
import { JOBS_COLUMNS } from './jobs';
import { OUTBOX_COLUMNS, OUTBOX_NULLABLE_COLUMNS } from './outbox';
import { RUN_TASK_ATTEMPT_OUTCOMES, RUN_TASK_ATTEMPTS_COLUMNS } from './run-task-attempts';
import { RUN_TASKS_COLUMNS } from './run-tasks';
import { SCHEDULE_FIRINGS_COLUMNS, SCHEDULE_FIRINGS_NULLABLE_COLUMNS } from './schedule-firings';
import { TENANTS_COLUMNS, TENANTS_NULLABLE_COLUMNS } from './tenants';
import { WEBHOOK_DELIVERIES_COLUMNS } from './webhook-deliveries';
import { WEBHOOK_DELIVERY_ATTEMPTS_COLUMNS, WEBHOOK_DELIVERY_ATTEMPTS_NULLABLE_COLUMNS } from './webhook-delivery-attempts';

/**
 * Each status union of the code is the value set of its column's CHECK constraint, so a new status
 * is added in a migration and in its `const` list together (the list is what the compiler checks
 * every `switch` and `Record` against).
 */
const CHECKED_COLUMNS: [table: string, column: string, values: readonly string[]][] = [
  ['crawls', 'status', CRAWL_STATUSES],
  ['crawls', 'stop_reason', CRAWL_STOP_REASONS],
  ['crawl_frontier', 'state', FRONTIER_STATES],
  ['crawl_frontier', 'content_status', CONTENT_STATUSES],
  ['jobs', 'type', JOB_TYPES],
  ['jobs', 'status', JOB_STATUSES],
  ['jobs', 'ingest_state', JOB_INGEST_STATES],
  ['job_tasks', 'method', BATCH_TASK_METHODS],
  ['job_runs', 'kind', RUN_KINDS],
  ['job_runs', 'status', RUN_STATUSES],
  ['run_tasks', 'state', RUN_TASK_STATES],
  ['run_task_attempts', 'outcome', RUN_TASK_ATTEMPT_OUTCOMES],
  ['job_schedules', 'state', SCHEDULE_STATES],
  ['schedule_firings', 'outcome', SCHEDULE_FIRING_OUTCOMES],
  ['webhook_deliveries', 'status', WEBHOOK_DELIVERY_STATUSES],
  ['webhook_signing_keys', 'status', SIGNING_KEY_STATUSES],
  ['tenants', 'subscription_status', SUBSCRIPTION_STATUSES],
  ['job_inputs', 'state', JOB_INPUT_STATES],
  ['job_exports', 'format', JOB_EXPORT_FORMATS],
  ['extract_domains', 'status', PREPARED_DOMAIN_STATUSES],
  ['extract_preparation_pages', 'state', PREPARATION_PAGE_STATES],
  ['crawl_skipped_urls', 'reason', SKIPPED_URL_REASONS],
  ['crawls', 'sitemap', SITEMAP_MODES],
];

/** Each shared table's row type (libs/persistence/src/tables) names exactly the table's columns. */
const ROW_TYPES: [table: string, columns: readonly string[]][] = [
  ['crawls', CRAWLS_COLUMNS],
  ['extract_domains', EXTRACT_DOMAINS_COLUMNS],
  ['crawl_frontier', CRAWL_FRONTIER_COLUMNS],
  ['jobs', JOBS_COLUMNS],
  ['job_tasks', JOB_TASKS_COLUMNS],
  ['job_runs', JOB_RUNS_COLUMNS],
  ['run_tasks', RUN_TASKS_COLUMNS],
  ['run_task_attempts', RUN_TASK_ATTEMPTS_COLUMNS],
  ['webhook_deliveries', WEBHOOK_DELIVERIES_COLUMNS],
  ['tenants', TENANTS_COLUMNS],
  ['outbox', OUTBOX_COLUMNS],
  ['job_schedules', JOB_SCHEDULES_COLUMNS],
  ['schedule_firings', SCHEDULE_FIRINGS_COLUMNS],
  ['job_inputs', JOB_INPUTS_COLUMNS],
  ['job_input_rows', JOB_INPUT_ROWS_COLUMNS],
  ['job_exports', JOB_EXPORTS_COLUMNS],
  ['crawl_contents', CRAWL_CONTENTS_COLUMNS],
  ['webhook_delivery_attempts', WEBHOOK_DELIVERY_ATTEMPTS_COLUMNS],
  ['crawl_skipped_urls', CRAWL_SKIPPED_URLS_COLUMNS],
];

/** The columns a row type lets be `null` (`T | null`) are exactly the table's columns without `NOT NULL`. */
const NULLABLE_COLUMNS: [table: string, columns: readonly string[]][] = [
  ['tenants', TENANTS_NULLABLE_COLUMNS],
  ['outbox', OUTBOX_NULLABLE_COLUMNS],
  ['job_schedules', JOB_SCHEDULES_NULLABLE_COLUMNS],
  ['schedule_firings', SCHEDULE_FIRINGS_NULLABLE_COLUMNS],
  ['job_inputs', JOB_INPUTS_NULLABLE_COLUMNS],
  ['job_input_rows', JOB_INPUT_ROWS_NULLABLE_COLUMNS],
  ['job_exports', JOB_EXPORTS_NULLABLE_COLUMNS],
  ['crawl_contents', CRAWL_CONTENTS_NULLABLE_COLUMNS],
  ['webhook_delivery_attempts', WEBHOOK_DELIVERY_ATTEMPTS_NULLABLE_COLUMNS],
];

describe('shared tables and the types of their rows', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    pool = testPool(database.url);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  /** The values the column's single-column CHECK constraints allow, as `pg_get_constraintdef` prints them. */
  async function allowedValues(table: string, column: string): Promise<string[]> {
    const { rows } = await pool.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        WHERE c.contype = 'c' AND c.conrelid = $1::regclass AND cardinality(c.conkey) = 1 AND a.attname = $2`,
      [table, column],
    );
    expect(rows).toHaveLength(1);
    // CHECK ((status = ANY (ARRAY['running'::text, 'completed'::text, …])))
    return [...rows[0]!.definition.matchAll(/'((?:[^']|'')*)'::text/g)].map((match) => match[1]!.replace(/''/g, "'"));
  }

  it.each(CHECKED_COLUMNS)('allows in %s.%s exactly the values of its const list', async (table, column, values) => {
    expect((await allowedValues(table, column)).sort()).toEqual([...values].sort());
  });

  it.each(ROW_TYPES)('types every column of %s, and only those', async (table, columns) => {
    const { rows } = await pool.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
      [table],
    );
    expect(rows.map((row) => row.column_name).sort()).toEqual([...columns].sort());
  });

  it.each(NULLABLE_COLUMNS)('lets be null in %s exactly the columns its row type does', async (table, columns) => {
    const { rows } = await pool.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 AND is_nullable = 'YES'`,
      [table],
    );
    expect(rows.map((row) => row.column_name).sort()).toEqual([...columns].sort());
  });
});
