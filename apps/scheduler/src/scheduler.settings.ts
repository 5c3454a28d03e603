import type { StopDeadlines } from '@trawl/service-kit';

export const SCHEDULER_SETTINGS = Symbol('SCHEDULER_SETTINGS');
/** The schedule engine's `Clock` (@trawl/scheduling): the system clock, or a test's. */
export const SCHEDULER_CLOCK = Symbol('SCHEDULER_CLOCK');

/** Tunables of the schedule engine (from config), with units. */
export interface SchedulerSettings {
  /** Name of the lease row the schedule leader holds. */
  leaseName: string;
  /** This replica's name in the lease row; unique per process. */
  instanceId: string;
  leaseTtlMs: number;
  renewIntervalMs: number;
  pollIntervalMs: number;
  /** How late a missed due time may still fire, ms. */
  missedGraceMs: number;
  /** Due schedules taken per pass. */
  batchSize: number;
  /** Shares of `SHUTDOWN_TIMEOUT_MS` the schedule engine's passes stop within. */
  stopDeadlines: StopDeadlines;
}

/** The lease that elects the replica firing schedules. */
export const SCHEDULE_LEASE_NAME = 'scheduler.schedules';
