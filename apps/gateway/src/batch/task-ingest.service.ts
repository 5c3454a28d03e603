import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { Database, RunsRepository } from '@trawl/persistence';
import { PeriodicLoop, SERVICE_LOGGER, settledWithin, StopCountdown, stopDeadlinesOf } from '@trawl/service-kit';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { IngestRecord, JobIngestsRepository } from './job-ingests.repository';
import type { JobTask } from './task-checks';
import { JobsRepository } from './jobs.repository';

/** Task rows written per transaction of an ingest. */
const INGEST_CHUNK_TASKS = 5_000;
/** An ingest not advanced for this long is taken over by another gateway (or this one, later). */
export const INGEST_LEASE_SECONDS = 60;

/**
 * Writes the task rows of large submissions after their `202` (spec-batch-api §4 POST /jobs), a
 * chunk per transaction, each advancing the staging row's `next_seq` under its lease. A gateway that
 * dies mid-ingest leaves the staging row behind; once its lease runs out, the recovery sweep of any
 * gateway resumes at `next_seq` from the tasks kept in that row, and the last chunk makes the job
 * `ready` and deletes the row in one transaction.
 */
@Injectable()
export class TaskIngestService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly running = new Map<string, Promise<void>>();
  /** The recovery sweep: at boot, then every `BATCH_INGEST_RECOVERY_INTERVAL_MS`. */
  private readonly recovery: PeriodicLoop;
  private stopping = false;

  constructor(
    private readonly db: Database,
    private readonly ingests: JobIngestsRepository,
    private readonly jobs: JobsRepository,
    private readonly runs: RunsRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'BATCH_INGEST_RECOVERY_INTERVAL_MS' | 'SHUTDOWN_TIMEOUT_MS'>,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.recovery = new PeriodicLoop({
      name: 'ingest recovery',
      intervalMs: config.BATCH_INGEST_RECOVERY_INTERVAL_MS,
      pass: async () => {
        await this.recoverExpired();
      },
      logger,
    });
  }

  onApplicationBootstrap(): void {
    this.recovery.start();
  }

  /**
   * Stops between chunks and waits, within the drain share of `SHUTDOWN_TIMEOUT_MS`, for the ingests
   * in progress; their leases let another gateway finish what is cut off.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const countdown = StopCountdown.start(stopDeadlinesOf(this.config.SHUTDOWN_TIMEOUT_MS));
    await this.recovery.stop(countdown.drainLeftMs());
    await settledWithin(Promise.allSettled([...this.running.values()]), countdown.drainLeftMs());
  }

  /** A fresh lease token for a new staging row. */
  newLeaseToken(): string {
    return randomUUID();
  }

  /** Ingests in the background; errors are logged (the lease lets the recovery sweep retry). */
  start(ingest: IngestRecord, tasks: readonly JobTask[]): void {
    this.track(ingest.jobId, this.ingest(ingest, tasks));
  }

  /** Writes the remaining chunks; resolves when the job is ready, or when the lease was lost or the gateway stops. */
  async ingest(ingest: IngestRecord, tasks: readonly JobTask[]): Promise<void> {
    for (let seq = ingest.nextSeq; ;) {
      if (this.stopping) return;
      const chunk = tasks.slice(seq - 1, seq - 1 + INGEST_CHUNK_TASKS);
      const kept = await this.db.transaction(async (sql) => {
        if (!(await this.ingests.advance(sql, ingest.jobId, ingest.leaseToken, seq + chunk.length, INGEST_LEASE_SECONDS))) return false;
        await this.jobs.insertTasks(sql, ingest.jobId, seq, chunk);
        if (ingest.runId) await this.runs.insertRunTasks(sql, ingest.runId, seq, chunk.length);
        if (seq + chunk.length > ingest.taskCount) await this.ingests.finish(sql, ingest.jobId, ingest.leaseToken);
        return true;
      });
      if (!kept) {
        this.logger.warn({ job_id: ingest.jobId }, 'ingest taken over by another gateway');
        return;
      }
      seq += chunk.length;
      if (seq > ingest.taskCount) return;
    }
  }

  /** Resumes every ingest whose lease ran out, one after the other. Answers how many it finished or resumed. */
  async recoverExpired(): Promise<number> {
    let recovered = 0;
    try {
      while (!this.stopping) {
        const claimed = await this.db.transaction((sql) => this.ingests.claimExpired(sql, randomUUID(), INGEST_LEASE_SECONDS));
        if (!claimed) break;
        this.logger.info({ job_id: claimed.jobId, next_seq: claimed.nextSeq }, 'resuming an ingest cut off');
        const tasks = JSON.parse(claimed.tasksJson) as JobTask[];
        this.track(claimed.jobId, this.ingest(claimed, tasks));
        await this.running.get(claimed.jobId);
        recovered += 1;
      }
    } catch (error) {
      this.logger.error({ err: error }, 'ingest recovery failed; retrying at the next sweep');
    }
    return recovered;
  }

  private track(jobId: string, work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => this.logger.error({ err: error, job_id: jobId }, 'ingest failed; the recovery sweep retries it'))
      .finally(() => this.running.delete(jobId));
    this.running.set(jobId, tracked);
  }
}
