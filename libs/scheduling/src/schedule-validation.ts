import { scheduleSchema } from '@trawl/contracts';
import { atInstant } from './next-firing';

/**
 * `scheduleSchema` plus the check that needs the time: an `at` whose wall-clock time in `timezone`
 * is not after `now` is refused on the path `at` (a one-shot schedule in the past would never fire).
 * Build one per request with the gateway's clock.
 */
export function scheduleSchemaAsOf(now: Date) {
  return scheduleSchema.superRefine((schedule, ctx) => {
    if (schedule.at === undefined || schedule.timezone === undefined) return;
    if (atInstant(schedule.at, schedule.timezone).getTime() <= now.getTime()) {
      ctx.addIssue({
        code: 'custom',
        path: ['at'],
        message: `must be in the future: ${schedule.at} in ${schedule.timezone} has passed`,
      });
    }
  });
}
