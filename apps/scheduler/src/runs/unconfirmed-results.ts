import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { Database, isConnectionLoss } from '@trawl/persistence';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { RunExecutionRepository } from './run-execution.repository';
import type { TaskClaim } from './task-result';

/**
 * How long a result applied without waiting for the disk stays unconfirmed, in ms. Postgres's WAL
 * writer puts commits on disk within a few `wal_writer_delay`s (200 ms each); this is ample.
 */
const UNCONFIRMED_MS = 5_000;

/**
 * Results committed without waiting for the disk (`RunResultsService.apply`), remembered for a few
 * seconds: a Postgres crash loses the last of them although their messages were acked, and their
 * claims would sit dispatched until the lease ran out (10 minutes by default). Once the database
 * is back, the claims of those the crash lost — still dispatched with the same attempt — go back to
 * the queue at once; the ones it kept are done and untouched.
 */
@Injectable()
export class UnconfirmedResults {
  private recent: { at: number; claims: TaskClaim[] }[] = [];
  private suspects: TaskClaim[] = [];

  constructor(
    private readonly db: Database,
    private readonly runs: RunExecutionRepository,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    // Idle pooled connections dying is how an outage too short for any query to meet is seen.
    db.onConnectionLoss((error) => this.noticed(error));
  }

  /** Claims whose results a non-durable transaction just committed. */
  applied(claims: TaskClaim[], now = Date.now()): void {
    if (claims.length === 0) return;
    this.forget(now);
    this.recent.push({ at: now, claims });
  }

  /** Call with any database error: when it says the server went away, recent results may be lost. */
  noticed(error: unknown, now = Date.now()): void {
    if (!isConnectionLoss(error)) return;
    this.forget(now);
    for (const { claims } of this.recent) this.suspects.push(...claims);
    this.recent = [];
  }

  /**
   * Puts back to the queue the suspect claims still dispatched with the same attempt (their results
   * were lost). Answers how many; keeps the suspects when the database is still away.
   */
  async recheck(): Promise<number> {
    if (this.suspects.length === 0) return 0;
    const suspects = this.suspects;
    this.suspects = [];
    let released: number;
    try {
      released = await this.runs.release(this.db, suspects);
    } catch (error) {
      this.suspects.unshift(...suspects);
      throw error;
    }
    if (released > 0)
      this.logger.warn({ released, checked: suspects.length }, 'task results lost in a database crash; their tasks queued again');
    return released;
  }

  private forget(now: number): void {
    this.recent = this.recent.filter((entry) => now - entry.at < UNCONFIRMED_MS);
  }
}
