import { z } from 'zod';
import type { ApiResponse, ApiRoute } from './api-route';
import {
  addTasksBody,
  createJobBody,
  idempotencyKeyConflictProblem,
  invalidTasksProblem,
  job,
  jobWebhook,
  taskHistory,
  jobList,
  jobListQuery,
  jobWebhookBody,
  jobWithAddedTasks,
  pageQuery,
  replaceScheduleBody,
  scheduleFiringList,
  scheduleFiringListQuery,
  scheduleStateBody,
  taskResultsPage,
  taskResultsQuery,
} from './batch-jobs.schemas';
import { jobCostEstimate, jobRun, rerunQuery, retryFailedBody, runCost, runList, startedRun } from './batch-runs.schemas';
import { createExportBody, JOB_EXPORT_MEDIA_TYPE, jobExport } from './job-exports.schemas';
import { createJobInputBody, csvInvalidRowsProblem, jobInputSlot, signedUrlQuery, uploadedJobInput } from './job-inputs.schemas';
import { PROBLEM_MEDIA_TYPE, problemResponses } from './problem.schema';
import {
  finalizedSigningKey,
  issuedSigningKey,
  signingKeyList,
  webhookDeliveryList,
  webhookTestBody,
  webhookTestResult,
} from './webhooks.schemas';

// The document adds what every route can answer (400, 500; 401 and 402 behind the API key; 413 and
// 415 with a JSON body); each route lists its own statuses beside them.
/** A route without a body schema still refuses a body that is too large (413) or not JSON (415). */
const WITH_BODY = [413, 415];
/** Routes that start paid work also check the account (spec-extract-fetch §7): 402 `AUTH004`/`AUTH011`/`AUTH012`, 403 `AUTH009`. */
const PAID_WORK = [403];

const jobParams = z.object({ jobId: z.string().meta({ description: 'The `job_id` of the job.' }) });
const runParams = jobParams.extend({ runId: z.string().meta({ description: 'The `run_id` of a run of the job.' }) });

const idempotencyHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().meta({
    description:
      'Guards against a duplicate job: a key is good for one job; its reuse answers `409 idempotency_key_conflict` (not a replay) whose `job_id` names the job that holds the key.',
  }),
});

/** A 400 whose problem may list bad tasks (`invalid_tasks`). */
const invalidTasksResponse: ApiResponse = {
  description: 'Error (400); `invalid_tasks` lists bad tasks',
  contentType: PROBLEM_MEDIA_TYPE,
  schema: invalidTasksProblem,
};

/** A 409 of a create whose problem may name the job holding its idempotency key (`job_id`). */
const keyConflictResponse: ApiResponse = {
  description: 'Error (409); with `idempotency_key_conflict`, `job_id` names the job that holds the key',
  contentType: PROBLEM_MEDIA_TYPE,
  schema: idempotencyKeyConflictProblem,
};

const jobAnswer = (description: string): ApiResponse => ({
  description,
  contentType: 'application/json',
  schema: job,
  headers: { Location: 'Path of the job.' },
});

const exportParams = jobParams.extend({ exportId: z.string().meta({ description: 'The `export_id` of the export.' }) });
const signedExportParams = z.object({ tenantId: z.string(), fileName: z.string().meta({ description: '`<export_id>.tar.gz`' }) });
const archiveHeaderNames = {
  'Content-Type': `\`${JOB_EXPORT_MEDIA_TYPE}\``,
  'Content-Disposition': '`attachment; filename="<export_id>.tar.gz"`',
};
const taskParams = jobParams.extend({ taskId: z.string().meta({ description: "The `task_id` of a result (the task's `seq`)." }) });
const taskContent: ApiResponse = { description: "The task's content, with the `Content-Type` it was stored with.", contentType: '*/*' };
const archive: ApiResponse = {
  description: "The run's results as a gzipped tar (`results.jsonl` and `bodies/<seq>.<ext>`), streamed: no `Content-Length`, no ranges.",
  contentType: JOB_EXPORT_MEDIA_TYPE,
  headers: { 'Content-Disposition': archiveHeaderNames['Content-Disposition'] },
};
/** `HEAD`: the download's headers, without reading the archive. */
const archiveHeaders: ApiResponse = { description: 'The export can be downloaded.', headers: archiveHeaderNames };

/** Steering the run in flight: no body, the refreshed run, `409 no_run_in_flight` without one. */
function runTransition(path: string, operationId: string, summary: string, description?: string): ApiRoute {
  return {
    method: 'post',
    path: `/v1/jobs/{jobId}/${path}`,
    operationId,
    summary,
    ...(description !== undefined && { description }),
    tag: 'Batch',
    params: jobParams,
    responses: { 200: jobRun, ...problemResponses(...WITH_BODY, 404, 409) },
  };
}

/** The Batch API (spec-batch-api §4) and its webhooks: jobs, runs, results, schedules, exports, CSV inputs, signing keys. */
export const batchRoutes: ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/jobs',
    operationId: 'createJob',
    summary: 'Create a job',
    description:
      '`201` for fewer than 10,000 inline tasks; `202` for 10,000 or more or a CSV input, while the task rows are written (`ingest_state: ingesting`).',
    tag: 'Batch',
    headers: idempotencyHeaders,
    body: createJobBody,
    responses: {
      201: jobAnswer('The job, with its first run (none for a scheduled job before its first firing).'),
      202: jobAnswer('The job; its task rows are still being written.'),
      ...problemResponses(...PAID_WORK, 404, 410, 422, 429),
      400: invalidTasksResponse,
      409: keyConflictResponse,
    },
  },
  {
    method: 'get',
    path: '/v1/jobs',
    operationId: 'listJobs',
    summary: 'List jobs, newest first',
    tag: 'Batch',
    query: jobListQuery,
    responses: { 200: jobList },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}',
    operationId: 'getJob',
    summary: 'Read a job with its latest run',
    tag: 'Batch',
    params: jobParams,
    responses: { 200: job, ...problemResponses(404) },
  },
  {
    method: 'delete',
    path: '/v1/jobs/{jobId}',
    operationId: 'deleteJob',
    summary: 'Delete a job with its tasks, runs, results, exports and schedule',
    description:
      "`409 run_in_flight` while a run is queued, running or paused (stop it first); `409 job_ingesting` while a large submission's tasks are being written. Billing history stays.",
    tag: 'Batch',
    params: jobParams,
    responses: { 204: { description: 'The job is gone.' }, ...problemResponses(...WITH_BODY, 404, 409) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/results',
    operationId: 'listTaskResults',
    summary: "Read one page of a run's results",
    tag: 'Batch',
    params: jobParams,
    query: taskResultsQuery,
    responses: { 200: taskResultsPage, ...problemResponses(404) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/runs/{runId}/results',
    operationId: 'listRunTaskResults',
    summary: "Read one page of a given run's results",
    description: 'The results endpoint with the run in the path instead of `run_id`.',
    tag: 'Batch',
    params: runParams,
    query: taskResultsQuery.omit({ run_id: true }),
    responses: { 200: taskResultsPage, ...problemResponses(404) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/tasks/{taskId}/content',
    operationId: 'getTaskContent',
    summary: "Read a task's content in the job's latest run",
    description:
      'The body as the results give it in `content`, as bytes with its `Content-Type`. `409 task_has_no_content` for a task not answered yet or failed.',
    tag: 'Batch',
    params: taskParams,
    responses: { 200: taskContent, ...problemResponses(404, 409) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/runs/{runId}/tasks/{taskId}/content',
    operationId: 'getRunTaskContent',
    summary: "Read a task's content in a given run",
    tag: 'Batch',
    params: runParams.extend(taskParams.pick({ taskId: true }).shape),
    responses: { 200: taskContent, ...problemResponses(404, 409) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/tasks/{taskId}/history',
    operationId: 'getTaskHistory',
    summary: "Read a task's attempts in the job's latest run",
    tag: 'Batch',
    params: taskParams,
    responses: { 200: taskHistory, ...problemResponses(404) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/runs/{runId}/tasks/{taskId}/history',
    operationId: 'getRunTaskHistory',
    summary: "Read a task's attempts in a given run",
    tag: 'Batch',
    params: runParams.extend(taskParams.pick({ taskId: true }).shape),
    responses: { 200: taskHistory, ...problemResponses(404) },
  },
  {
    method: 'get',
    path: '/downloads/task_contents/{tenantId}/{runId}/{taskId}',
    operationId: 'downloadSignedTaskContent',
    summary: "Read a task's content by its signed `result_url`",
    description:
      'The `result_url` of a successful result: the signature is the credential, no API key is needed. `410 result_url_expired` 12 hours after the results page that gave it.',
    tag: 'Batch',
    authenticated: false,
    params: z.object({ tenantId: z.string(), runId: z.string(), taskId: z.string() }),
    query: signedUrlQuery,
    responses: { 200: taskContent, ...problemResponses(404, 409, 410) },
  },
  {
    method: 'post',
    path: '/v1/jobs/{jobId}/tasks',
    operationId: 'addTasks',
    summary: 'Add tasks to an open job',
    description: '`409` for a closed job, or while the rows of a large submission are still being written.',
    tag: 'Batch',
    params: jobParams,
    body: addTasksBody,
    responses: { 200: jobWithAddedTasks, ...problemResponses(404, 409, 422), 400: invalidTasksResponse },
  },
  {
    method: 'post',
    path: '/v1/jobs/{jobId}/close',
    operationId: 'closeJob',
    summary: 'Close an open job',
    tag: 'Batch',
    params: jobParams,
    responses: { 200: job, ...problemResponses(...WITH_BODY, 404) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/runs',
    operationId: 'listJobRuns',
    summary: "List a job's runs, newest first",
    tag: 'Batch',
    params: jobParams,
    query: pageQuery,
    responses: { 200: runList, ...problemResponses(404) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/runs/{runId}',
    operationId: 'getJobRun',
    summary: 'Read a run',
    tag: 'Batch',
    params: runParams,
    responses: { 200: jobRun, ...problemResponses(404) },
  },
  {
    method: 'delete',
    path: '/v1/jobs/{jobId}/runs/{runId}',
    operationId: 'deleteJobRun',
    summary: "Delete a run's results and exports",
    description:
      'The run stays listed with status `deleted`, its counts and spend kept; deleting it again changes nothing. `409 run_in_flight` until the run has ended.',
    tag: 'Batch',
    params: runParams,
    responses: { 204: { description: "The run's results are gone." }, ...problemResponses(...WITH_BODY, 404, 409) },
  },
  runTransition('stop', 'stopJobRun', 'Stop the current run'),
  runTransition('cancel', 'cancelJobRun', 'Stop the current run (alias of stop)'),
  runTransition('pause', 'pauseJobRun', 'Suspend the current run'),
  runTransition('resume', 'resumeJobRun', 'Continue a suspended run'),
  {
    method: 'post',
    path: '/v1/jobs/{jobId}/rerun',
    operationId: 'rerunJob',
    summary: 'Start a new run replaying every task (or, with `status`, the failed ones)',
    tag: 'Batch',
    params: jobParams,
    query: rerunQuery,
    responses: { 201: startedRun, ...problemResponses(...WITH_BODY, ...PAID_WORK, 404, 409, 429) },
  },
  {
    method: 'post',
    path: '/v1/jobs/{jobId}/retry-failed',
    operationId: 'retryFailedTasks',
    summary: "Start a new run of the latest run's failed tasks",
    description:
      'Successful results are carried over (`carried_over: true`, not billed again). `409 nothing_to_retry` when there is nothing to re-queue.',
    tag: 'Batch',
    params: jobParams,
    body: retryFailedBody,
    responses: { 201: startedRun, ...problemResponses(...PAID_WORK, 404, 409, 429) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/cost-estimate',
    operationId: 'estimateJobCost',
    summary: 'Estimate what a run of the job would cost',
    tag: 'Batch',
    params: jobParams,
    responses: { 200: jobCostEstimate, ...problemResponses(404) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/runs/{runId}/cost',
    operationId: 'getJobRunCost',
    summary: 'Read what a run cost',
    tag: 'Batch',
    params: runParams,
    responses: { 200: runCost, ...problemResponses(404) },
  },
  {
    method: 'put',
    path: '/v1/jobs/{jobId}/schedule',
    operationId: 'replaceJobSchedule',
    summary: "Replace a scheduled job's schedule",
    description: 'The body is the schedule itself; `{ "schedule": {…} }` is accepted too.',
    tag: 'Batch',
    params: jobParams,
    body: replaceScheduleBody,
    responses: { 200: job, ...problemResponses(404, 409, 422) },
  },
  {
    method: 'post',
    path: '/v1/jobs/{jobId}/schedule/state',
    operationId: 'setJobScheduleState',
    summary: "Pause or resume a job's schedule",
    description: "Pauses the schedule's firings, not a run in flight.",
    tag: 'Batch',
    params: jobParams,
    body: scheduleStateBody,
    responses: { 200: job, ...problemResponses(404, 409, 422) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/schedule/firings',
    operationId: 'listScheduleFirings',
    summary: "List a schedule's due times, newest first",
    description: 'Each due time `started` (with its `run_id`) or `skipped` (with `reason` and `detail`).',
    tag: 'Batch',
    params: jobParams,
    query: scheduleFiringListQuery,
    responses: { 200: scheduleFiringList, ...problemResponses(404, 409) },
  },
  {
    method: 'post',
    path: '/v1/jobs/{jobId}/exports',
    operationId: 'createJobExport',
    summary: "Export a run's results as one archive",
    description:
      'An empty body exports the latest run. The export expires 12 hours after creation; a run over 1 GiB of results is `422 export_too_large`.',
    tag: 'Batch',
    params: jobParams,
    body: createExportBody,
    responses: { 201: jobExport, ...problemResponses(404, 409, 422) },
  },
  {
    method: 'post',
    path: '/v1/jobs/{jobId}/runs/{runId}/exports',
    operationId: 'createRunExport',
    summary: "Export a given run's results as one archive",
    description: '`POST /v1/jobs/{jobId}/exports` with the run in the path; no body.',
    tag: 'Batch',
    params: runParams,
    responses: { 201: jobExport, ...problemResponses(...WITH_BODY, 404, 409, 422) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/runs/{runId}/exports/{exportId}',
    operationId: 'getRunExport',
    summary: 'Read an export of a run (its status and download URL, not the archive)',
    description: '`410 export_expired` 12 hours after it was made.',
    tag: 'Batch',
    params: runParams.extend(exportParams.pick({ exportId: true }).shape),
    responses: { 200: jobExport, ...problemResponses(404, 410) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/exports/{exportId}',
    operationId: 'downloadJobExport',
    summary: 'Download an export with the API key',
    tag: 'Batch',
    params: exportParams,
    responses: { 200: archive, ...problemResponses(404, 410, 503) },
  },
  {
    method: 'head',
    path: '/v1/jobs/{jobId}/exports/{exportId}',
    operationId: 'headJobExport',
    summary: "Check an export with the API key (the download's headers, no archive)",
    tag: 'Batch',
    params: exportParams,
    responses: { 200: archiveHeaders, ...problemResponses(404, 410) },
  },
  {
    method: 'get',
    path: '/downloads/job_exports/{tenantId}/{fileName}',
    operationId: 'downloadSignedJobExport',
    summary: 'Download an export by its signed URL',
    description: 'The `download.url` of an export: the signature is the credential, no API key is needed.',
    tag: 'Batch',
    authenticated: false,
    params: signedExportParams,
    query: signedUrlQuery,
    responses: { 200: archive, ...problemResponses(404, 410, 503) },
  },
  {
    method: 'head',
    path: '/downloads/job_exports/{tenantId}/{fileName}',
    operationId: 'headSignedJobExport',
    summary: "Check an export's signed URL (the download's headers, no archive)",
    tag: 'Batch',
    authenticated: false,
    params: signedExportParams,
    query: signedUrlQuery,
    responses: { 200: archiveHeaders, ...problemResponses(404, 410) },
  },
  {
    method: 'post',
    path: '/v1/job_inputs',
    operationId: 'createJobInput',
    summary: 'Create a CSV input slot',
    description: 'Send the file with `PUT` to `upload.url` with exactly `upload.headers`, then create a job with `file_input_id`.',
    tag: 'Batch',
    body: createJobInputBody,
    responses: { 201: jobInputSlot, ...problemResponses(422) },
  },
  {
    method: 'put',
    path: '/uploads/job_inputs/{inputId}',
    operationId: 'uploadJobInput',
    summary: "Upload a CSV input's file to its signed URL",
    description:
      'The `upload.url` of a CSV input slot: the signature is the credential, no API key is needed. At most 50 MB and 100,000 rows.',
    tag: 'Batch',
    authenticated: false,
    params: z.object({ inputId: z.string().meta({ description: 'The `file_input_id` of the slot.' }) }),
    query: signedUrlQuery,
    body: { contentType: 'text/csv', description: 'The CSV file, UTF-8.' },
    responses: {
      200: uploadedJobInput,
      ...problemResponses(403, 404, 409, 413, 415, 503),
      400: { description: 'Error (400); `invalid_rows` lists bad rows', contentType: PROBLEM_MEDIA_TYPE, schema: csvInvalidRowsProblem },
    },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/webhook',
    operationId: 'getJobWebhook',
    summary: "Show a job's webhook",
    description: '`404 webhook_not_found` when the job has none.',
    tag: 'Webhooks',
    params: jobParams,
    responses: { 200: jobWebhook, ...problemResponses(404) },
  },
  {
    method: 'put',
    path: '/v1/jobs/{jobId}/webhook',
    operationId: 'setJobWebhook',
    summary: "Set or replace a job's webhook",
    description:
      '`400 webhook_signing_requires_active_key` for `signature: true` without an active signing key; `400 callback_url_must_be_https` for an `http` URL.',
    tag: 'Webhooks',
    params: jobParams,
    body: jobWebhookBody,
    responses: { 200: job, ...problemResponses(404, 422) },
  },
  {
    method: 'delete',
    path: '/v1/jobs/{jobId}/webhook',
    operationId: 'removeJobWebhook',
    summary: "Remove a job's webhook",
    tag: 'Webhooks',
    params: jobParams,
    responses: { 204: { description: 'The job has no webhook any more.' }, ...problemResponses(...WITH_BODY, 404) },
  },
  {
    method: 'get',
    path: '/v1/jobs/{jobId}/webhook/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "List a job's webhook deliveries, newest first, with every attempt",
    tag: 'Webhooks',
    params: jobParams,
    query: pageQuery,
    responses: { 200: webhookDeliveryList },
  },
  {
    method: 'post',
    path: '/v1/hmac/keys/rotate',
    operationId: 'rotateSigningKey',
    summary: 'Create the signing key, or stage a new one',
    description:
      'With no active key, creates the active key; with one, stages a candidate: receivers accept both key ids until finalize. The secret is shown this one time.',
    tag: 'Webhooks',
    responses: { 201: issuedSigningKey, ...problemResponses(...WITH_BODY, 503) },
  },
  {
    method: 'post',
    path: '/v1/hmac/keys/rotate/finalize',
    operationId: 'finalizeSigningKeyRotation',
    summary: 'Finish a rotation: the candidate key signs from now on',
    tag: 'Webhooks',
    responses: { 200: finalizedSigningKey, ...problemResponses(...WITH_BODY, 409, 503) },
  },
  {
    method: 'delete',
    path: '/v1/hmac/keys/rotate',
    operationId: 'cancelSigningKeyRotation',
    summary: 'Cancel a rotation: the staged candidate key is dropped',
    description: 'The active key goes on signing; `409 no_key_rotation_in_progress` when no candidate is staged.',
    tag: 'Webhooks',
    responses: { 204: { description: 'The candidate is retired.' }, ...problemResponses(...WITH_BODY, 409) },
  },
  {
    method: 'get',
    path: '/v1/hmac/keys',
    operationId: 'listSigningKeys',
    summary: 'Show the signing keys (never a secret)',
    tag: 'Webhooks',
    responses: { 200: signingKeyList },
  },
  {
    method: 'post',
    path: '/v1/webhook/test',
    operationId: 'sendWebhookTest',
    summary: 'Send a test event to a URL',
    description: 'Sends a `webhook.test` event signed like real deliveries and runs no job; `200` whatever the receiver answered.',
    tag: 'Webhooks',
    body: webhookTestBody,
    responses: { 200: webhookTestResult, ...problemResponses(422, 503) },
  },
];
