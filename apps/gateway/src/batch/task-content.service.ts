import { Inject, Injectable } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { UrlSigner } from '../file-transfers/url-signer';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { BatchError, BatchErrorCode } from './batch.errors';
import { resultStatus, taskIdOf } from './job.presenter';
import { JobResultsRepository, TaskResultRecord } from './job-results.repository';
import { JobRunsService } from './job-runs.service';

/** How long a result's signed URL holds from the reading that gave it: as long as an export, 12 hours. */
const RESULT_URL_LIFETIME_MS = 12 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a task's content endpoint answers: the body as the target gave it (after the output options). */
export interface TaskContent {
  contentType: string;
  body: Buffer;
}

/** The seq a `task_id` names; `undefined` for anything that is not one. */
export function seqOf(taskId: string): number | undefined {
  return /^[1-9]\d{0,8}$/.test(taskId) ? Number(taskId) : undefined;
}

/**
 * Path of a result's signed URL: outside `/v1`, the signature being the credential (as for export
 * downloads); it names the tenant, so the signature binds it with the run and the task.
 */
export function resultContentPath(tenantId: string, runId: string, taskId: string): string {
  return `/downloads/task_contents/${tenantId}/${runId}/${taskId}`;
}

/**
 * A task's content on its own (the public Node SDK reads results this way): by the API key, of the
 * job's latest run or of a given run, and by the signed `result_url` each successful result
 * carries, which plain HTTP clients can fetch.
 */
@Injectable()
export class TaskContentService {
  private readonly signer: UrlSigner;

  constructor(
    private readonly runs: JobRunsService,
    private readonly results: JobResultsRepository,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.signer = UrlSigner.fromConfig(config);
  }

  /**
   * The task's content in the run (the job's latest without one).
   *
   * @throws BatchError `job_not_found`, `run_not_found`, `task_not_found`, `task_has_no_content`.
   */
  async content(tenantId: string, jobId: string, runId: string | undefined, taskId: string): Promise<TaskContent> {
    const run = await this.runs.runOrLatest(tenantId, jobId, runId);
    const seq = seqOf(taskId);
    const result = run && seq !== undefined ? await this.results.one(tenantId, run.id, seq, jobId) : undefined;
    if (!result) throw taskNotFound();
    return contentOf(result);
  }

  /**
   * The content a signed `result_url` names, once its signature holds; a signature that does not
   * match reads as not found, as another tenant's task does.
   *
   * @throws BatchError `task_not_found`, `result_url_expired`, `task_has_no_content`.
   */
  async signedContent(
    tenantId: string,
    runId: string,
    taskId: string,
    signed: { expires: unknown; signature: unknown },
  ): Promise<TaskContent> {
    const seq = seqOf(taskId);
    const verdict =
      UUID.test(tenantId) && UUID.test(runId) && seq !== undefined
        ? this.signer.verify('GET', resultContentPath(tenantId, runId, taskId), signed.expires, signed.signature, new Date())
        : 'invalid';
    if (verdict === 'invalid')
      throw taskNotFound('No result at this URL: its signature does not match it. Use `result_url` exactly as the results page gave it.');
    if (verdict === 'expired') {
      throw new BatchError(
        BatchErrorCode.ResultUrlExpired,
        'This result URL has expired (12 hours after the results page that gave it): read the results again for a fresh one.',
      );
    }
    const result = await this.results.one(tenantId, runId, seq!);
    if (!result) throw taskNotFound('This result no longer exists (its run or job was deleted).');
    return contentOf(result);
  }

  /** The signed URL of a successful result's content, at `origin`; none for a task without content. */
  resultUrl(origin: string, tenantId: string, runId: string, result: TaskResultRecord, now: Date): string | undefined {
    if (result.body === null || resultStatus(result.state).status !== 'successful') return undefined;
    const path = resultContentPath(tenantId, runId, taskIdOf(result.seq));
    return `${origin}${this.signer.signedPath('GET', path, new Date(now.getTime() + RESULT_URL_LIFETIME_MS))}`;
  }
}

function contentOf(result: TaskResultRecord): TaskContent {
  if (result.body === null) {
    const { status } = resultStatus(result.state);
    throw new BatchError(BatchErrorCode.TaskHasNoContent, `Task ${taskIdOf(result.seq)} is ${status} in this run and has no content.`, {
      task_status: status,
    });
  }
  return { contentType: result.contentType ?? 'application/octet-stream', body: result.body };
}

export function taskNotFound(detail = 'This run has no task with this id; `task_id` is on each result.'): BatchError {
  return new BatchError(BatchErrorCode.TaskNotFound, detail);
}
