import { Inject, Injectable } from '@nestjs/common';
import { CommitOutcomeUnknownError, Database } from '@trawl/persistence';
import { DispatchClaims, Refill, RunDispatcherService } from './run-dispatcher.service';
import { IntakeOutcome, RunResultsService } from './run-results.service';
import { RunsMetrics } from './runs.metrics';
import { RUNS_SETTINGS, RunsSettings } from './runs.settings';
import type { TaskClaim, TaskResult } from './task-result';

/** What one intake did: the results' outcome, and the freed slots it filled again itself. */
export interface IntakeWithRefill extends IntakeOutcome {
  /** Tasks claimed for slots these results freed (taken again, not free). */
  refilled: number;
  /** A tenant of these results has queued tasks and room the intake did not fill: a round should follow. */
  roomLeft: boolean;
  /**
   * Settles once the refilled tasks are published, or given up on (logged; their leases bring them
   * back). Not awaited by the intake: a publish held through a NATS outage must not hold results.
   */
  published: Promise<void>;
}

const NO_REFILL: Refill = { claims: [], roomLeft: false };

/**
 * One intake of task results: applied, with the skipped claims put back, in one transaction that
 * also claims the next tasks for the freed slots where the dispatcher allows it
 * (`RunDispatcherService.refillIn`); those are published once it commits.
 *
 * Its commit does not wait for the disk, like the dispatcher's claims: results a Postgres crash
 * loses are claims still dispatched, fetched again when their lease runs out; claims it loses are
 * tasks queued again. When the COMMIT's answer is lost, its claims are published all the same (had
 * it committed, they would wait out their lease; message ids name the lease, so a claim that did not
 * commit shadows nothing) and the error goes on to the caller, which applies the results again:
 * a no-op if they were committed.
 */
@Injectable()
export class RunIntakeService {
  constructor(
    private readonly db: Database,
    private readonly results: RunResultsService,
    private readonly dispatcher: RunDispatcherService,
    private readonly metrics: RunsMetrics,
    @Inject(RUNS_SETTINGS) private readonly settings: RunsSettings,
  ) {}

  async take(results: TaskResult[], skipped: TaskClaim[] = []): Promise<IntakeWithRefill> {
    let committed: { outcome: IntakeOutcome; refill: Refill };
    const timer = this.metrics.intakeSeconds.startTimer();
    try {
      committed = await this.db.transaction(
        async (sql) => {
          const refilling = this.settings.refillOnIntake;
          const outcome = await this.results.applyIntakeIn(sql, results, skipped, { tryDispatchLocks: refilling });
          const refill = refilling ? await this.dispatcher.refillIn(sql, outcome.freed, outcome.dispatchLocked) : NO_REFILL;
          return { outcome, refill };
        },
        { durable: false },
      );
    } catch (error) {
      if (error instanceof CommitOutcomeUnknownError) void this.publish((error.result as typeof committed).refill.claims);
      throw error;
    } finally {
      timer();
    }
    const { outcome, refill } = committed;
    this.results.countUsage(outcome);
    return {
      ...outcome,
      refilled: refill.claims.reduce((tasks, claimed) => tasks + claimed.tasks.length, 0),
      roomLeft: refill.roomLeft,
      published: this.publish(refill.claims),
    };
  }

  /** `publishClaims` logs its own failures, so this never rejects. */
  private async publish(claims: DispatchClaims[]): Promise<void> {
    for (const claimed of claims) await this.dispatcher.publishClaims(claimed);
  }
}
