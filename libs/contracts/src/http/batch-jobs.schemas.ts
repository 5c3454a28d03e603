import { z } from 'zod';
import { BATCH_TASK_METHODS } from '../batch-task.messages';
import { OUTPUT_FORMATS } from '../output-formats';
import { CACHE_STATUSES, CHANGE_STATUSES } from '../fetch.messages';
import { SCHEDULE_RATE_UNITS, SCHEDULE_STATES, SCHEDULE_WEEKDAYS, scheduleSchema } from '../schedule.schema';
import { JOB_INGEST_STATES, JOB_STATUSES, JOB_TYPES } from '../states';
import { jobRun, nextCursor } from './batch-runs.schemas';
import { problemDetails } from './problem.schema';

/**
 * Jobs of the Batch API over HTTP (spec-batch-api §2, §4): the bodies the gateway validates, the
 * job, schedule, firing and result objects it answers, and the queries of its lists.
 */

/** Spec-batch-api §8. */
export const BATCH_LIMITS = {
  tasksPerSubmit: 100_000,
  /** Fewer inline tasks than this answer `201`; from here up, `202`. */
  synchronousTasks: 10_000,
  tasksPerAdd: 10_000,
  /** A POST or PUT task's `body`, in UTF-8 bytes. */
  taskBodyBytes: 16 * 1024,
  /** Our bounds (the spec is silent): an `external_id` is an id, `metadata` is a note, not a payload. */
  externalIdChars: 255,
  metadataBytes: 8 * 1024,
  urlChars: 8_192,
} as const;

/** At most this many bad tasks (or CSV rows) are listed: a 100,000-task mistake needs a few examples, not a 10 MB problem. */
export const MAX_INVALID_TASKS_LISTED = 100;

/** Page sizes of the job, run, firing and delivery lists (`limit`). */
export const LIST_PAGE_LIMITS = { min: 1, max: 100, fallback: 20 } as const;

/** Results per page (spec-batch-api §8: about 1,000), also the most `limit` takes. */
export const RESULTS_PAGE_SIZE = 1_000;

const serviceParams = z.record(z.string(), z.unknown()).meta({
  description:
    'Scrape options, the Fetch API\'s parameters (`js_render`, `premium_proxy`, `proxy_country`, `wait_for`, `response_type`, `custom_headers`, `mode`, …). Scalar switches may be sent as strings (`"true"`). `zenrows_params` (the public Node SDK\'s name) is taken for it on a job and on a task; both at once is refused; answers say `service_params`.',
});

/** `webhook` of a job as sent (spec §2): `PUT /v1/jobs/{jobId}/webhook` and `POST /v1/jobs`. */
export const jobWebhookBody = z
  .strictObject({
    url: z.string().min(1).meta({ description: 'A public `https` URL.' }),
    signature: z.boolean().default(false).meta({ description: "Sign deliveries with the account's active signing key." }),
  })
  .meta({ id: 'JobWebhookRequest' });

/** The `schedule` object of a scheduled job as sent (`scheduleSchema`), named in the document. */
export const scheduleBody = scheduleSchema.meta({
  id: 'ScheduleRequest',
  description: 'Exactly one of `rate`, `calendar`, `at`; `timezone` (IANA name) with `calendar` and `at`.',
});

/**
 * One task of `tasks` (spec §2 Task). The gateway holds each task to it on its own (`checkTasks`),
 * so that a submission's bad tasks are all named at once.
 */
export const batchTaskBody = z
  .strictObject({
    url: z.string().min(1).max(BATCH_LIMITS.urlChars),
    external_id: z
      .string()
      .max(BATCH_LIMITS.externalIdChars)
      .nullish()
      .meta({ description: 'Returned unchanged on every result; need not be unique.' }),
    metadata: z.record(z.string(), z.unknown()).nullish().meta({ description: 'Caller data, at most 8 KiB of JSON.' }),
    service_params: serviceParams.nullish().meta({ description: 'Overrides the job-level keys for this URL only.' }),
    method: z.enum(BATCH_TASK_METHODS).default('GET'),
    body: z.string().nullish().meta({ description: 'Sent verbatim with a `POST` or `PUT` target; at most 16 KiB.' }),
  })
  .superRefine((task, ctx) => {
    if (typeof task.body === 'string' && task.method === 'GET') {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'is sent only with `method: "POST"` or `"PUT"`' });
    }
    if (typeof task.body === 'string' && Buffer.byteLength(task.body) > BATCH_LIMITS.taskBodyBytes) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: `is over ${BATCH_LIMITS.taskBodyBytes / 1024} KiB` });
    }
    if (task.metadata && Buffer.byteLength(JSON.stringify(task.metadata)) > BATCH_LIMITS.metadataBytes) {
      ctx.addIssue({ code: 'custom', path: ['metadata'], message: `is over ${BATCH_LIMITS.metadataBytes / 1024} KiB of JSON` });
    }
  })
  .meta({ id: 'BatchTask' });
export type BatchTaskBody = z.output<typeof batchTaskBody>;

/** `tasks` as the gateway first reads them: each one is then held to `batchTaskBody` by `checkTasks`. */
const uncheckedTasks = z.array(z.unknown());

const createJobFields = {
  type: z.enum(JOB_TYPES).default('regular'),
  status: z.enum(JOB_STATUSES).default('closed').meta({ description: '`open` takes more tasks later (`POST /v1/jobs/{jobId}/tasks`).' }),
  service_params: serviceParams.default({}),
  file_input_id: z.uuid().nullish().meta({ description: 'An uploaded CSV input (`POST /v1/job_inputs`), instead of `tasks`.' }),
  schedule: scheduleBody.nullish().meta({ description: 'Required for a `scheduled` job, refused for a `regular` one.' }),
  webhook: jobWebhookBody.nullish(),
};

function refineCreateJob(
  body: { type: string; status: string; tasks?: unknown[] | null; file_input_id?: string | null; schedule?: unknown },
  ctx: z.RefinementCtx,
): void {
  if ((body.tasks ?? null) !== null && (body.file_input_id ?? null) !== null) {
    ctx.addIssue({ code: 'custom', path: ['file_input_id'], message: 'cannot be given with `tasks`: send one or the other' });
  }
  if (body.type === 'scheduled' && (body.schedule ?? null) === null) {
    ctx.addIssue({ code: 'custom', path: ['schedule'], message: 'is required for a `scheduled` job' });
  }
  if (body.type === 'regular' && (body.schedule ?? null) !== null) {
    ctx.addIssue({ code: 'custom', path: ['schedule'], message: 'is only for `scheduled` jobs' });
  }
  if (body.status === 'closed' && (body.tasks ?? null) === null && (body.file_input_id ?? null) === null) {
    ctx.addIssue({ code: 'custom', path: ['tasks'], message: 'is required for a closed job (or give `file_input_id`)' });
  }
}

/** Body of `POST /v1/jobs`, as documented: every task a `BatchTask`. */
export const createJobBody = z
  .strictObject({ ...createJobFields, tasks: z.array(batchTaskBody).max(BATCH_LIMITS.tasksPerSubmit).nullish() })
  .superRefine(refineCreateJob)
  .meta({ id: 'CreateJobRequest' });

/**
 * `createJobBody` with its tasks left unread, as the gateway parses it: `checkTasks` then holds each
 * task to `batchTaskBody` (all bad tasks named, and the common ones read without zod, which would take
 * a second for 100,000 of them).
 */
export const createJobBodyShallow = z
  .strictObject({ ...createJobFields, tasks: uncheckedTasks.max(BATCH_LIMITS.tasksPerSubmit).nullish() })
  .superRefine(refineCreateJob);
export type CreateJobBody = z.output<typeof createJobBodyShallow>;

/** Body of `POST /v1/jobs/{jobId}/tasks`, as documented. */
export const addTasksBody = z
  .strictObject({
    tasks: z.array(batchTaskBody).min(1).max(BATCH_LIMITS.tasksPerAdd),
    last_batch: z.boolean().default(false).meta({ description: '`true` closes the job after these tasks.' }),
  })
  .meta({ id: 'AddTasksRequest' });

/** `addTasksBody` with its tasks left unread, for `checkTasks` (see `createJobBodyShallow`). */
export const addTasksBodyShallow = z.strictObject({
  tasks: uncheckedTasks.min(1).max(BATCH_LIMITS.tasksPerAdd),
  last_batch: z.boolean().default(false),
});

/** Body of `POST /v1/jobs/{jobId}/schedule/state`: pauses or resumes the schedule (not a run). */
export const scheduleStateBody = z
  .strictObject({
    schedule_state: z.enum(SCHEDULE_STATES, { error: `must be one of: ${SCHEDULE_STATES.join(', ')}` }),
  })
  .meta({ id: 'ScheduleStateRequest' });

/** `PUT /v1/jobs/{jobId}/schedule` also takes the schedule wrapped: `{ "schedule": {…} }`. */
export const wrappedScheduleBody = z.strictObject({ schedule: scheduleBody });

/** Body of `PUT /v1/jobs/{jobId}/schedule`, as documented: the schedule, bare or wrapped. */
export const replaceScheduleBody = z.union([scheduleBody, wrappedScheduleBody]);

/** One entry of a problem's `invalid_tasks`. */
export const invalidTask = z.object({
  index: z.int().min(0).meta({ description: 'Position in the submitted `tasks` array.' }),
  field: z.string().meta({ description: 'The field at fault (`url`, `service_params.wait`, …).' }),
  reason: z.string(),
});
export type InvalidTask = z.infer<typeof invalidTask>;

/** A `400` of a task submission: `invalid_tasks` names the bad tasks (`code: invalid_tasks`), other 400s carry none. */
export const invalidTasksProblem = problemDetails
  .extend({
    invalid_tasks: z.array(invalidTask).max(MAX_INVALID_TASKS_LISTED).optional(),
    invalid_task_count: z.int().min(1).optional(),
  })
  .meta({
    id: 'InvalidTasksProblem',
    description: 'An error answer; with `code: invalid_tasks`, the bad tasks (at most 100 listed) and their count.',
  });

/**
 * A `409` of `POST /v1/jobs`: with `code: idempotency_key_conflict`, `job_id` names the caller's job
 * that holds the key (keys are per tenant); other 409s carry none. The first answer is still not replayed.
 */
export const idempotencyKeyConflictProblem = problemDetails
  .extend({
    job_id: z
      .uuid()
      .optional()
      .meta({ description: 'The job created with this idempotency key: read it to learn what the first request created.' }),
  })
  .meta({
    id: 'IdempotencyKeyConflictProblem',
    description: 'An error answer; with `code: idempotency_key_conflict`, the job that holds the key.',
  });

// Answers. Fields that are "absent" are left out, never `null`, unless the field says `null`.

/** The job's webhook as set. */
export const jobWebhook = z.object({ url: z.string(), signature: z.boolean() }).meta({ id: 'JobWebhook' });
export type JobWebhookAnswer = z.infer<typeof jobWebhook>;

/** Why a due time started no run (`run_in_flight` and `quota_exceeded` are a rerun's codes for the same refusal). */
export const SCHEDULE_SKIP_REASONS = ['missed', 'run_in_flight', 'quota_exceeded', 'job_unavailable'] as const;
export type ScheduleSkipReason = (typeof SCHEDULE_SKIP_REASONS)[number];

/** A due time of a schedule: `started` with its `run_id`, or `skipped` with `reason` and `detail`. */
export const scheduleFiring = z
  .discriminatedUnion('status', [
    z.object({
      due_at: z.iso.datetime(),
      fired_at: z.iso.datetime(),
      status: z.literal('started'),
      run_id: z.uuid().optional(),
    }),
    z.object({
      due_at: z.iso.datetime(),
      fired_at: z.iso.datetime(),
      status: z.literal('skipped'),
      reason: z.enum(SCHEDULE_SKIP_REASONS),
      detail: z.string(),
    }),
  ])
  .meta({ id: 'ScheduleFiring', description: 'A due time of the schedule: the run it started, or why it started none.' });
export type ScheduleFiringAnswer = z.infer<typeof scheduleFiring>;

/** `status` filter of the firing list. */
export const SCHEDULE_FIRING_STATUSES = ['started', 'skipped'] as const;

/** The job's `schedule`: as accepted (normalised), with its state, next due time and latest firing. */
export const jobSchedule = z
  .object({
    rate: z.object({ every: z.int().min(1), unit: z.enum(SCHEDULE_RATE_UNITS) }).optional(),
    calendar: z
      .object({
        times_of_day: z.array(z.string()),
        cadence: z.object({ weekly: z.object({ days: z.array(z.enum(SCHEDULE_WEEKDAYS)) }) }),
      })
      .optional(),
    at: z.string().optional().meta({ description: 'Local date and time `YYYY-MM-DDTHH:MM` in `timezone`.' }),
    timezone: z.string().optional(),
    schedule_state: z.enum(SCHEDULE_STATES),
    next_run_at: z.iso.datetime().nullable().meta({ description: '`null` while paused, or once a one-shot schedule has fired.' }),
    last_firing: scheduleFiring.optional(),
  })
  .meta({ id: 'JobSchedule' });
export type JobScheduleAnswer = z.infer<typeof jobSchedule>;

/** A job (spec §2 Job) with its latest run. */
export const job = z
  .object({
    job_id: z.uuid(),
    type: z.enum(JOB_TYPES),
    status: z.enum(JOB_STATUSES),
    service_params: z.record(z.string(), z.unknown()),
    file_input_id: z.uuid().nullable().meta({ description: 'The CSV input the tasks came from; `null` for inline tasks.' }),
    task_count: z.int().min(0),
    ingest_state: z.enum(JOB_INGEST_STATES).meta({
      description: '`ingesting` while the rows of a large submission are written: results may be partial and adding tasks answers 409.',
    }),
    webhook: jobWebhook.optional(),
    schedule: jobSchedule.optional(),
    schedule_state: z
      .enum(SCHEDULE_STATES)
      .optional()
      .meta({ description: "A scheduled job's `schedule.schedule_state`, where the public Node SDK reads it." }),
    next_scheduled_run: z.iso
      .datetime()
      .optional()
      .meta({ description: "A scheduled job's `schedule.next_run_at` while there is one, where the public Node SDK reads it." }),
    latest_run: jobRun.optional().meta({ description: "The current or most recent run; none before a scheduled job's first firing." }),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'Job' });
export type JobAnswer = z.infer<typeof job>;

/** `POST /v1/jobs/{jobId}/tasks`: the job, and how many tasks were added. */
export const jobWithAddedTasks = job
  .extend({
    tasks_added: z.int().min(1),
    accepted_tasks: z.int().min(1).meta({ description: '`tasks_added`, under the name the public Node SDK reads.' }),
    job_status: z.enum(JOB_STATUSES).meta({ description: '`status`, under the name the public Node SDK reads.' }),
  })
  .meta({ id: 'JobWithAddedTasks' });
export type JobWithAddedTasksAnswer = z.infer<typeof jobWithAddedTasks>;

/** `GET /v1/jobs`: newest first. */
export const jobList = z.object({ jobs: z.array(job), next_cursor: nextCursor }).meta({ id: 'JobList' });
export type JobListAnswer = z.infer<typeof jobList>;

/** `GET /v1/jobs/{jobId}/schedule/firings`: newest first. */
export const scheduleFiringList = z
  .object({ firings: z.array(scheduleFiring), next_cursor: nextCursor })
  .meta({ id: 'ScheduleFiringList' });
export type ScheduleFiringListAnswer = z.infer<typeof scheduleFiringList>;

/** How a task of a run stands, in the API's words. */
export const TASK_RESULT_STATUSES = ['queued', 'in_progress', 'successful', 'failed'] as const;
export type TaskResultStatus = (typeof TASK_RESULT_STATUSES)[number];

/** One task of a run with its result (spec §4 results). */
export const taskResult = z
  .object({
    seq: z.int().min(1).meta({ description: 'Position of the task in its job, from 1.' }),
    task_id: z.string().meta({
      description:
        "The task in the job's task paths (`/v1/jobs/{job_id}/tasks/{task_id}/content`): `seq` as a string, the same in every run.",
    }),
    run_id: z.uuid().meta({ description: 'The run this result is of.' }),
    url: z.string(),
    method: z.enum(BATCH_TASK_METHODS),
    external_id: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    status: z.enum(TASK_RESULT_STATUSES),
    carried_over: z
      .literal(true)
      .optional()
      .meta({ description: 'A result retry-failed carried over from the run it retried (not billed again).' }),
    status_code: z.int().optional().meta({ description: "The target's HTTP status." }),
    output_format: z
      .string()
      .optional()
      .meta({ description: `The format of \`content\`: ${OUTPUT_FORMATS.map((format) => `\`${format}\``).join(', ')}.` }),
    content_type: z.string().optional(),
    content: z.string().optional(),
    encoding: z.enum(['utf8', 'base64']).optional().meta({ description: 'How `content` is written: text as is, anything else in base64.' }),
    error: z.object({ code: z.string(), detail: z.string() }).optional(),
    credits: z.number().min(0),
    cache: z
      .enum(CACHE_STATUSES)
      .optional()
      .meta({ description: 'With `max_age`: `hit` when a kept copy answered (billed 1 credit), `miss` when the page was fetched.' }),
    change_status: z.enum(CHANGE_STATUSES).optional().meta({
      description:
        "With `change_tracking`: the page against your last version of its URL (`new`, `same`, `changed`, `removed`). Ask the task's content with `json_response=true` for the diff.",
    }),
    finished_at: z.iso.datetime().optional(),
    result_url: z.string().optional().meta({
      description:
        "A successful result's content as the target answered it, by a signed URL (no API key needed), valid 12 hours from this page's reading.",
    }),
  })
  .meta({ id: 'TaskResult' });
export type TaskResultAnswer = z.infer<typeof taskResult>;

/** `GET /v1/jobs/{jobId}[/runs/{runId}]/tasks/{taskId}/history`: the task's attempts in the run, oldest first. */
export const taskHistory = z
  .object({
    events: z.array(
      z.object({
        attempt: z.int().min(1).meta({ description: 'The dispatch this was, from 1 (a claim handed back unrun is not one).' }),
        started_at: z.iso.datetime().optional(),
        ended_at: z.iso.datetime(),
        outcome: z.enum(['succeeded', 'failed', 'lease_expired']),
        error: z.object({ code: z.string(), detail: z.string() }).optional(),
        spend: z
          .object({ credits: z.number().min(0), cost: z.number().min(0) })
          .meta({ description: "Credits billed for the attempt, and their cost at today's price." }),
      }),
    ),
  })
  .meta({ id: 'TaskHistory' });
export type TaskHistoryAnswer = z.infer<typeof taskHistory>;

/** `GET /v1/jobs/{jobId}/results`: one page of a run's results, in task order. */
export const taskResultsPage = z
  .object({
    job_id: z.uuid(),
    run: jobRun.optional().meta({ description: 'The run the results are of; absent when the job has no run yet.' }),
    results: z.array(taskResult),
    next_cursor: nextCursor,
  })
  .meta({ id: 'TaskResultsPage' });
export type TaskResultsPageAnswer = z.infer<typeof taskResultsPage>;

// Queries. Values travel as strings; the gateway reads them with these names and bounds.

const cursorParameter = z.string().meta({ description: 'The `next_cursor` of the previous page.' });
const listLimitParameter = z
  .int()
  .min(LIST_PAGE_LIMITS.min)
  .max(LIST_PAGE_LIMITS.max)
  .meta({ description: `Items per page (default ${LIST_PAGE_LIMITS.fallback}).`, default: LIST_PAGE_LIMITS.fallback });

/** Query of every list paged with `cursor` and `limit`. */
export const pageQuery = z.object({ cursor: cursorParameter.optional(), limit: listLimitParameter.optional() });

/** Query of `GET /v1/jobs`. */
export const jobListQuery = z.object({
  status: z.enum(JOB_STATUSES).optional(),
  type: z.enum(JOB_TYPES).optional(),
  cursor: cursorParameter.optional(),
  limit: listLimitParameter.optional(),
});

/** Query of `GET /v1/jobs/{jobId}/results`. */
export const taskResultsQuery = z.object({
  status: z.enum(['successful']).optional().meta({ description: '`successful` keeps successful tasks only.' }),
  run_id: z.uuid().optional().meta({ description: 'The run to read (default: the latest).' }),
  change_status: z
    .string()
    .optional()
    .meta({
      description: `Only tasks whose \`change_tracking\` verdict is one of these, comma-separated (${CHANGE_STATUSES.join(', ')}): \`changed,removed\` lists what a monitor's run found.`,
    }),
  cursor: cursorParameter.optional(),
  limit: z
    .int()
    .min(1)
    .max(RESULTS_PAGE_SIZE)
    .optional()
    .meta({ description: `Results per page (default ${RESULTS_PAGE_SIZE}).`, default: RESULTS_PAGE_SIZE }),
});

/** Query of `GET /v1/jobs/{jobId}/schedule/firings`. */
export const scheduleFiringListQuery = z.object({
  status: z.enum(SCHEDULE_FIRING_STATUSES).optional().meta({ description: '`skipped` keeps the due times that started no run.' }),
  cursor: cursorParameter.optional(),
  limit: listLimitParameter.optional(),
});

/** The names a query schema accepts, for the gateway's unknown-parameter check. */
export function queryParameterNames(query: z.ZodObject): string[] {
  return Object.keys(query.shape);
}
