import { firingsBetween, nextFiring, ScheduleFiringOutcome, ScheduleTiming } from '@trawl/scheduling';

/** What happened to one due time (the `outcome` of its `schedule_firings` row), defined in `@trawl/scheduling`. */
export type FiringOutcome = ScheduleFiringOutcome;

/** What the leader does with a schedule whose due time has come. */
export interface FiringPlan {
  /** The due time to fire now, if any. */
  fire?: Date;
  /** Due times recorded as `skipped_missed`, oldest first (the newest `maxRecordedSkips` of them). */
  skipped: Date[];
  /** All due times skipped, recorded or not. */
  skippedTotal: number;
  /** The first due time after `now`, or `null` if the schedule will not fire again. */
  nextDueAt: Date | null;
}

export interface MissedFiringPolicy {
  /** How late a due time may still fire, ms. */
  graceMs: number;
  /** Most skipped due times recorded per schedule and pass (default 100): a long outage of an hourly schedule is not thousands of rows. */
  maxRecordedSkips?: number;
}

/**
 * The missed-firing policy (apps/scheduler/README.md "Decisions"). Due times pile up when no leader was
 * running (all replicas down, a lease hand-over). Of those in `[dueAt, now]`:
 * - the **latest** fires once, if it is at most `graceMs` old: one run catches up, as a user who
 *   missed the 09:00 run expects to see it at 09:05, not never;
 * - every other one, and the latest if it is older than the grace, is `skipped_missed`: firing them
 *   all would start a burst of identical runs that the user never wanted side by side.
 * In normal operation only one due time is ever pending and it fires with a lag of one poll.
 *
 * @param dueAt the schedule's recorded next due time (`<= now`)
 * @param anchor origin of a rate's grid
 */
export function planFiring(schedule: ScheduleTiming, anchor: Date, dueAt: Date, now: Date, policy: MissedFiringPolicy): FiringPlan {
  const keep = policy.maxRecordedSkips ?? 100;
  const later = firingsBetween(schedule, dueAt, now, anchor, keep + 1);
  const total = later.total + 1;
  const dueTimes = later.total < keep + 1 ? [dueAt, ...later.dueTimes] : later.dueTimes;
  const latest = dueTimes[dueTimes.length - 1]!;
  const fire = now.getTime() - latest.getTime() <= policy.graceMs ? latest : undefined;
  const skipped = (fire ? dueTimes.slice(0, -1) : dueTimes).slice(-keep);
  return { fire, skipped, skippedTotal: total - (fire ? 1 : 0), nextDueAt: nextFiring(schedule, now, anchor) };
}
