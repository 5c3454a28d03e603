import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { Database, Sql } from '@trawl/persistence';
import { LeaderElection } from '../leadership/leader-election';
import { LeaseRepository } from '../leadership/lease.repository';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { RetentionRepository } from './retention.repository';
import { RETENTION_SETTINGS, RetentionSettings } from './retention.settings';

/** What one sweep deleted. */
export interface SweepOutcome {
  inputRows: number;
  inputs: number;
  exports: number;
}

/** Statements per kind and sweep at most, so one sweep never holds the leader for long. */
const MAX_ROUNDS = 50;

/**
 * Retention of the Batch API's short-lived records (spec-batch-api §9: CSV slots valid 24 h, exports
 * 12 h): the staged rows of CSV inputs that expired unused, then the slots themselves and the export
 * records once `expiredKeptMs` past expiry. Run by the schedule leader only; each statement's
 * transaction re-checks the lease epoch, so a deposed leader deletes nothing more.
 */
@Injectable()
export class RetentionSweepService {
  constructor(
    private readonly db: Database,
    private readonly election: LeaderElection,
    private readonly leases: LeaseRepository,
    private readonly retention: RetentionRepository,
    @Inject(RETENTION_SETTINGS) private readonly settings: RetentionSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /** One sweep, when this replica leads (else nothing). */
  async sweepOnce(): Promise<SweepOutcome> {
    const { batchSize, expiredKeptMs } = this.settings;
    const outcome: SweepOutcome = {
      inputRows: await this.drain((sql) => this.retention.deleteExpiredInputRows(sql, batchSize)),
      inputs: await this.drain((sql) => this.retention.deleteExpiredInputs(sql, expiredKeptMs, batchSize)),
      exports: await this.drain((sql) => this.retention.deleteExpiredExports(sql, expiredKeptMs, batchSize)),
    };
    if (outcome.inputRows + outcome.inputs + outcome.exports > 0) this.logger.info(outcome, 'expired batch records swept');
    return outcome;
  }

  /** Repeats a bounded delete while it fills whole batches and this replica still leads. */
  private async drain(deleteSome: (sql: Sql) => Promise<number>): Promise<number> {
    let total = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const lease = this.election.current();
      if (!lease) break;
      const deleted = await this.db.transaction(async (sql) => {
        if (!(await this.leases.holdsEpoch(sql, lease))) {
          this.election.deposed(lease);
          return undefined;
        }
        return deleteSome(sql);
      });
      if (deleted === undefined) break;
      total += deleted;
      if (deleted < this.settings.batchSize) break;
    }
    return total;
  }
}
