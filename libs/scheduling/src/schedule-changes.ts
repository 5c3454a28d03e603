import { Schedule, ScheduleState } from '@trawl/contracts';
import { nextFiring } from './next-firing';

/** What the scheduler keeps about a job's schedule besides the schedule itself. */
export interface ScheduleTimingState {
  state: ScheduleState;
  /** Origin of a rate's grid: when the schedule was created or last replaced. */
  anchorAt: Date;
  /** The next due time, or `null` when the schedule is paused or will not fire again. */
  nextDueAt: Date | null;
}

/**
 * The timing state of a schedule that is created (`POST /v1/jobs`) or replaced
 * (`PUT /v1/jobs/{id}/schedule`) at `now`. The anchor moves to `now`, so a replaced rate counts its
 * interval from the change. `schedule_state` left out keeps the current state (a replacement does not
 * resume a paused schedule), and a new schedule starts `active`.
 *
 * @param current the state before a replacement; `undefined` on creation
 */
export function scheduleOnReplace(schedule: Schedule, current: ScheduleState | undefined, now: Date): ScheduleTimingState {
  const state = schedule.schedule_state ?? current ?? 'active';
  return { state, anchorAt: now, nextDueAt: state === 'active' ? nextFiring(schedule, now, now) : null };
}

/**
 * The next due time after `POST /v1/jobs/{id}/schedule/state` at `now`. Pausing clears it; resuming
 * takes the first due time strictly after `now`, so times missed while paused never fire, and a rate
 * stays on its original grid (resuming does not move the anchor). An `at` schedule resumed after its
 * time has `null`: it will not fire.
 */
export function nextDueOnStateChange(schedule: Schedule, anchorAt: Date, state: ScheduleState, now: Date): Date | null {
  return state === 'active' ? nextFiring(schedule, now, anchorAt) : null;
}
