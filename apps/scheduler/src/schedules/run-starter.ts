import type { Sql } from '@trawl/persistence';

/** A firing asks for a new run of its job (spec-batch-api §3: "each schedule firing → new run"). */
export interface ScheduledRunRequest {
  tenantId: string;
  jobId: string;
  /** The due time being fired (not when it was handled). */
  dueAt: Date;
  /** The `schedule_firings` row of this firing: a run can point back at it. */
  firingId: string;
}

/** What starting a scheduled run came to. */
export type ScheduledRunStart =
  | { outcome: 'started'; runId: string }
  /**
   * `quota_exceeded`: the tenant already has its maximum of active jobs and crawls;
   * `job_unavailable`: the job is gone or can no longer run;
   * `previous_running`: a run of the job is in flight, seen under the job lock (a rerun or retry may
   * have started one after the firing's own `runInFlight` look).
   */
  | { outcome: 'refused'; reason: 'quota_exceeded' | 'job_unavailable' | 'previous_running' };

/**
 * How the scheduler starts runs, implemented by the Batch API's runs (the scheduler knows no run
 * tables). Both methods run inside the firing's transaction, on `sql`, which is guarded by the
 * leader's lease epoch: a run is created if and only if its firing is recorded.
 */
export interface RunStarter {
  /** The job's run that has not reached a terminal status, if any (the previous firing's run still going). */
  runInFlight(sql: Sql, job: { tenantId: string; jobId: string }): Promise<{ runId: string } | undefined>;
  /**
   * Creates the job's next run (all its tasks, as a rerun does) and makes it dispatchable, unless a
   * run of the job is in flight by then: that check must be made under the lock that reruns take too.
   */
  startScheduledRun(sql: Sql, request: ScheduledRunRequest): Promise<ScheduledRunStart>;
}

export const RUN_STARTER = Symbol('RUN_STARTER');
