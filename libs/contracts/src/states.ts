/**
 * The states of the records several services read and the public API shows. Each list is the one
 * definition of its union: the tables' CHECK constraints hold the same values (an integration test
 * in libs/persistence compares them with the database), repositories type their rows with these
 * unions, and HTTP response schemas build their enums from them.
 */

/** `crawls.status` (Crawl spec §2). */
export const CRAWL_STATUSES = ['running', 'completed', 'stopped', 'failed'] as const;
export type CrawlStatus = (typeof CRAWL_STATUSES)[number];

/** `crawls.stop_reason`: why a crawl stopped before its frontier ran dry. */
export const CRAWL_STOP_REASONS = ['max_items', 'max_pages', 'user'] as const;
export type CrawlStopReason = (typeof CRAWL_STOP_REASONS)[number];

/** `crawl_frontier.state`: a URL waiting, out with a worker, settled, or dropped by a limit. */
export const FRONTIER_STATES = ['queued', 'dispatched', 'done', 'dropped'] as const;
export type FrontierState = (typeof FRONTIER_STATES)[number];

/** `crawl_frontier.content_status`: a kept page's HTML (Crawl spec §3, `output_format: html`). */
export const CONTENT_STATUSES = ['pending', 'fetched', 'failed'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

/** `jobs.status` (Batch spec §1). */
export const JOB_STATUSES = ['open', 'closed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** `jobs.type`. */
export const JOB_TYPES = ['regular', 'scheduled'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** `jobs.ingest_state`: `ingesting` while a large submission's rows are written (results partial, adding tasks 409). */
export const JOB_INGEST_STATES = ['ready', 'ingesting'] as const;
export type JobIngestState = (typeof JOB_INGEST_STATES)[number];

/** `job_runs.kind`: what started the run. */
export const RUN_KINDS = ['initial', 'rerun', 'retry_failed', 'scheduled'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** `job_runs.status` (Batch spec §2). */
export const RUN_STATUSES = ['queued', 'running', 'paused', 'completed', 'stopped', 'failed', 'deleted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Run statuses a run never leaves. */
export const FINISHED_RUN_STATUSES = ['completed', 'stopped', 'failed', 'deleted'] as const satisfies readonly RunStatus[];

/** Statuses of a run that still holds an active-job slot: every status but `FINISHED_RUN_STATUSES`. */
export const RUNS_IN_FLIGHT = ['queued', 'running', 'paused'] as const satisfies readonly RunStatus[];
export type RunInFlightStatus = (typeof RUNS_IN_FLIGHT)[number];

/**
 * `true` while every run status is either in flight or finished: a new status in `RUN_STATUSES`
 * does not compile until it is put in one of the two lists.
 */
export const EVERY_RUN_STATUS_IN_FLIGHT_OR_FINISHED: [
  Exclude<RunStatus, RunInFlightStatus | (typeof FINISHED_RUN_STATUSES)[number]>,
] extends [never]
  ? true
  : never = true;

/** `run_tasks.state`: one URL of one run; `carried` copies a result from the run a retry started from. */
export const RUN_TASK_STATES = ['queued', 'dispatched', 'succeeded', 'failed', 'carried'] as const;
export type RunTaskState = (typeof RUN_TASK_STATES)[number];

/** `webhook_deliveries.status`. */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** `signing_keys.status`: the key that signs, the one that will, and the one that did. */
export const SIGNING_KEY_STATUSES = ['active', 'candidate', 'retired'] as const;
export type SigningKeyStatus = (typeof SIGNING_KEY_STATUSES)[number];

/** `tenants.subscription_status`. */
export const SUBSCRIPTION_STATUSES = ['active', 'none', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Whether `status` is one a run never leaves. */
export function isFinishedRunStatus(status: RunStatus): boolean {
  return (FINISHED_RUN_STATUSES as readonly RunStatus[]).includes(status);
}

/**
 * `extract_domains.status` (Extract spec §3): asked for, being prepared, served, or given up. A
 * domain being prepared again keeps serving its last recipe (`recipe_version` set) while `preparing`.
 */
export const PREPARED_DOMAIN_STATUSES = ['queued', 'preparing', 'ready', 'failed'] as const;
export type PreparedDomainStatus = (typeof PREPARED_DOMAIN_STATUSES)[number];

/** `extract_preparation_pages.state`: a page a preparation fetched, or could not. */
export const PREPARATION_PAGE_STATES = ['fetched', 'failed'] as const;
export type PreparationPageState = (typeof PREPARATION_PAGE_STATES)[number];
