import { Inject, Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';
import { RunDispatcherService } from './run-dispatcher.service';
import { IntakeOutcome, RunResultsService } from './run-results.service';
import { RUNS_SETTINGS, RunsSettings } from './runs.settings';
import type { TaskClaim, TaskResult } from './task-result';

/** What one intake did: the results' outcome, and the freed slots it filled again itself. */
export interface IntakeWithRefill extends IntakeOutcome {
  /** Tasks claimed and published for slots these results freed (not counted as free any more). */
  refilled: number;
}

/**
 * One intake of task results: applied, with the skipped claims put back, in one transaction that
 * also claims the next tasks for the freed slots where the dispatcher allows it
 * (`RunDispatcherService.refillIn`); those are published once it commits.
 *
 * Its commit does not wait for the disk, like the dispatcher's claims: results a Postgres crash
 * loses are claims still dispatched, fetched again when their lease runs out; claims it loses are
 * tasks queued again. An intake whose commit is in doubt is applied again, which changes nothing
 * for its results and claims other tasks; the doubtful claims, if they committed, wait out their lease.
 */
@Injectable()
export class RunIntakeService {
  constructor(
    private readonly db: Database,
    private readonly results: RunResultsService,
    private readonly dispatcher: RunDispatcherService,
    @Inject(RUNS_SETTINGS) private readonly settings: RunsSettings,
  ) {}

  async take(results: TaskResult[], skipped: TaskClaim[] = []): Promise<IntakeWithRefill> {
    const { outcome, claims } = await this.db.transaction(
      async (sql) => {
        const outcome = await this.results.applyIntakeIn(sql, results, skipped);
        const claims = this.settings.refillOnIntake ? await this.dispatcher.refillIn(sql, outcome.freed) : [];
        return { outcome, claims };
      },
      { durable: false },
    );
    this.results.countUsage(outcome);
    for (const claimed of claims) await this.dispatcher.publishClaims(claimed);
    return { ...outcome, refilled: claims.reduce((tasks, claimed) => tasks + claimed.tasks.length, 0) };
  }
}
