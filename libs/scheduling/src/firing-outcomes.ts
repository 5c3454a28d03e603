/**
 * What the scheduler did with one due time of a schedule: the `outcome` of its `schedule_firings` row
 * (the table's CHECK in migration 1764000000020 lists the same words). The scheduler writes them; the
 * gateway shows them to the tenant as `status` and `reason` (`GET /v1/jobs/{id}/schedule/firings`).
 */
export const SCHEDULE_FIRING_OUTCOMES = [
  'started',
  /** Due while no leader ran, and older than the grace (or not the latest of those piled up). */
  'skipped_missed',
  /** The job's previous run was still queued, running or paused. */
  'skipped_previous_running',
  /** The tenant was at its active-job limit. */
  'skipped_quota',
  /** The job could not run (gone, not scheduled, its tasks still being written). */
  'skipped_job_unavailable',
] as const;

export type ScheduleFiringOutcome = (typeof SCHEDULE_FIRING_OUTCOMES)[number];
