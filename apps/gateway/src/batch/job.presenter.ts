import { isOutputFormat, OUTPUT_FORMAT_MEDIA, type RunTaskState } from '@trawl/contracts';
import {
  type JobAnswer,
  type JobRunAnswer,
  type JobScheduleAnswer,
  type ScheduleFiringAnswer,
  type ScheduleSkipReason,
  type TaskResultAnswer,
  type TaskResultStatus,
} from '@trawl/contracts/http';
import type { TaskResultRecord } from './job-results.repository';
import type { ScheduleFiringOutcome } from '@trawl/scheduling';
import type { JobRecord, JobScheduleRecord, RunRecord } from './jobs.repository';
import type { ScheduleFiringRecord } from './schedule-firings.repository';

/** Fields that are "absent" are left out, never `null` (as in the Crawl API). */
export function presentJob(job: JobRecord): JobAnswer {
  return {
    job_id: job.id,
    type: job.type,
    status: job.status,
    service_params: job.serviceParams,
    // Always there, `null` without a CSV input: spec §2 lists it among the job's fields.
    file_input_id: job.fileInputId,
    task_count: job.taskCount,
    // `ingesting` while the rows of a large submission are written: results may be partial and
    // adding tasks answers 409 until it is `ready`.
    ingest_state: job.ingestState,
    ...(job.webhookUrl !== null && { webhook: { url: job.webhookUrl, signature: job.webhookSignature } }),
    ...(job.schedule && { schedule: presentSchedule(job.schedule, job.schedule.lastFiring) }),
    // Also at the top, where the public Node SDK reads them.
    ...(job.schedule && { schedule_state: job.schedule.state }),
    ...(job.schedule?.nextDueAt && { next_scheduled_run: job.schedule.nextDueAt.toISOString() }),
    ...(job.latestRun && { latest_run: presentRun(job.latestRun) }),
    created_at: job.createdAt.toISOString(),
  };
}

export function presentRun(run: RunRecord): JobRunAnswer {
  return {
    run_id: run.id,
    run_sequence: run.runSequence,
    kind: run.kind,
    status: run.status,
    stats: {
      total: run.total,
      completed: run.successful + run.failed,
      successful: run.successful,
      failed: run.failed,
      // The run's stored cost, as its webhook events send it: a later price change rewrites neither.
      spend: { credits: run.credits, cost: run.cost },
    },
    ...(run.failureReason !== null && { failure_reason: run.failureReason }),
    ...(run.failureDetail !== null && { failure_detail: run.failureDetail }),
    created_at: run.createdAt.toISOString(),
    ...(run.startedAt && { started_at: run.startedAt.toISOString() }),
    ...(run.finishedAt && { finished_at: run.finishedAt.toISOString() }),
  };
}

/**
 * The job's `schedule`: as accepted (normalised), with its state, next due time and, once a due time
 * has come, `last_firing` (started or skipped, with the reason).
 */
export function presentSchedule(record: JobScheduleRecord, lastFiring: ScheduleFiringRecord | null = null): JobScheduleAnswer {
  const { schedule_state: _given, ...schedule } = record.schedule;
  return {
    ...stripUndefined(schedule),
    schedule_state: record.state,
    next_run_at: record.nextDueAt ? record.nextDueAt.toISOString() : null,
    ...(lastFiring && { last_firing: presentFiring(lastFiring) }),
  };
}

/**
 * Why a due time started no run, in the API's words: `run_in_flight` and `quota_exceeded` are the
 * codes a rerun gets for the same refusal. Not run statuses: a skipped due time has no run, so run
 * lists, `latest_run` and run webhooks stay as clients know them.
 */
const SKIP_REASONS = {
  skipped_missed: {
    reason: 'missed',
    detail: 'The scheduler was not running at this time and it was too late to catch up; only the latest missed time runs.',
  },
  skipped_previous_running: {
    reason: 'run_in_flight',
    detail: 'The previous run of this job was still queued, running or paused; runs of one job never overlap.',
  },
  skipped_quota: {
    reason: 'quota_exceeded',
    detail: 'Your account was at its limit of active jobs and crawls.',
  },
  skipped_job_unavailable: {
    reason: 'job_unavailable',
    detail: 'The job could not run (its tasks were still being written, or it was being removed).',
  },
} as const satisfies Record<Exclude<ScheduleFiringOutcome, 'started'>, { reason: ScheduleSkipReason; detail: string }>;

/** A due time of the schedule: `started` with its `run_id`, or `skipped` with `reason` and `detail`. */
export function presentFiring(firing: ScheduleFiringRecord): ScheduleFiringAnswer {
  const common = { due_at: firing.dueAt.toISOString(), fired_at: firing.firedAt.toISOString() };
  if (firing.outcome === 'started')
    return { ...common, status: 'started' as const, ...(firing.runId !== null && { run_id: firing.runId }) };
  return { ...common, status: 'skipped' as const, ...SKIP_REASONS[firing.outcome] };
}

/** How a task of a run stands, in the API's words. */
const RESULT_STATUS = {
  queued: 'queued',
  dispatched: 'in_progress',
  succeeded: 'successful',
  carried: 'successful',
  failed: 'failed',
} as const satisfies Record<RunTaskState, TaskResultStatus>;

/**
 * A run task's state in the API's words: `status`, and `carried_over: true` for a result that
 * retry-failed carried over from the run it retried (not billed again). Results pages and export
 * archives both say it this way.
 */
export function resultStatus(state: RunTaskState): { status: (typeof RESULT_STATUS)[RunTaskState]; carried_over?: true } {
  return { status: RESULT_STATUS[state], ...(state === 'carried' && { carried_over: true as const }) };
}

/** A task's id in paths and results: its position in the job, which every run of the job shares. */
export function taskIdOf(seq: number): string {
  return String(seq);
}

/** A result of run `runId`, with its content's signed URL when it has one. */
export function presentResult(result: TaskResultRecord, runId: string, resultUrl?: string): TaskResultAnswer {
  const content = result.body === null ? undefined : encodeContent(result.body, result.contentType, result.outputFormat);
  return {
    seq: result.seq,
    task_id: taskIdOf(result.seq),
    run_id: runId,
    url: result.url,
    method: result.method,
    external_id: result.externalId,
    ...(result.metadata !== null && { metadata: result.metadata }),
    ...resultStatus(result.state),
    ...(result.statusCode !== null && { status_code: result.statusCode }),
    ...(result.outputFormat !== null && { output_format: result.outputFormat }),
    ...(result.contentType !== null && { content_type: result.contentType }),
    ...(content && { content: content.text, encoding: content.encoding }),
    ...(result.errorCode !== null && { error: { code: result.errorCode, detail: result.errorDetail ?? '' } }),
    credits: result.credits,
    ...(result.cache !== null && { cache: result.cache }),
    ...(result.changeStatus !== null && { change_status: result.changeStatus }),
    ...(result.finishedAt && { finished_at: result.finishedAt.toISOString() }),
    ...(resultUrl && { result_url: resultUrl }),
  };
}

/**
 * Text bodies as strings, anything else (PDF, screenshots, images) as base64, with `encoding` saying
 * which: JSON cannot carry bytes, and guessing from the bytes would mangle a binary that happens to
 * look like UTF-8.
 */
export function encodeContent(
  body: Buffer,
  contentType: string | null,
  outputFormat: string | null,
): { text: string; encoding: 'utf8' | 'base64' } {
  return isText(contentType, outputFormat)
    ? { text: body.toString('utf8'), encoding: 'utf8' }
    : { text: body.toString('base64'), encoding: 'base64' };
}

function isText(contentType: string | null, outputFormat: string | null): boolean {
  if (contentType) {
    const type = contentType.split(';')[0]!.trim().toLowerCase();
    return (
      type.startsWith('text/') ||
      type === 'application/json' ||
      type.endsWith('+json') ||
      type === 'application/xml' ||
      type.endsWith('+xml') ||
      type === 'application/javascript' ||
      type === 'application/x-ndjson'
    );
  }
  return isOutputFormat(outputFormat) && OUTPUT_FORMAT_MEDIA[outputFormat].text;
}

function stripUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
