import { CodedError } from '@trawl/errors';

/** Why the schedule engine stopped a step. */
export enum SchedulerErrorCode {
  /** The lease's epoch moved on: another replica leads now, and this one's writes are refused. */
  LeaseLost = 'lease_lost',
}

export class SchedulerError extends CodedError<SchedulerErrorCode> {}
