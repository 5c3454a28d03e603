import { Inject, Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';
import { Logger } from '@trawl/observability';
import type { Clock } from '@trawl/scheduling';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { SCHEDULER_CLOCK, SCHEDULER_SETTINGS, SchedulerSettings } from '../scheduler.settings';
import { SchedulerMetrics } from '../scheduler.metrics';
import { Lease, LeaseRepository } from './lease.repository';

/**
 * Leader election on a Postgres lease row with an epoch (ARCHITECTURE §3 "Crash safety"): every
 * replica calls `electOnce` every `renewIntervalMs`; the leader renews, the others take the lease
 * once it has expired, which bumps the epoch. Believing to lead is not enough to write: every firing
 * re-checks the epoch in its own transaction (`LeaseRepository.holdsEpoch`), so a deposed leader that
 * has not noticed yet (paused process, skewed clock) has its writes refused.
 */
@Injectable()
export class LeaderElection {
  private lease?: Lease;

  constructor(
    private readonly db: Database,
    private readonly leases: LeaseRepository,
    private readonly metrics: SchedulerMetrics,
    @Inject(SCHEDULER_CLOCK) private readonly clock: Clock,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /** Renews or tries to take the lease; answers the lease held afterwards, if any. */
  async electOnce(): Promise<Lease | undefined> {
    const now = this.clock.now();
    const { leaseName, instanceId, leaseTtlMs } = this.settings;
    try {
      if (this.lease) {
        const renewed = await this.leases.renew(this.db, this.lease, now, leaseTtlMs);
        if (renewed) this.lease = renewed;
        else this.lose('renewal refused: another replica took the lease');
      }
      if (!this.lease) {
        this.lease = await this.leases.acquire(this.db, leaseName, instanceId, now, leaseTtlMs);
        if (this.lease) {
          this.metrics.leadershipChanges.inc({ change: 'acquired' });
          this.logger.info({ lease: leaseName, epoch: this.lease.epoch }, 'became the schedule leader');
        }
      }
    } catch (error) {
      // The database is unreachable: keep leading until the lease would have run out anyway.
      this.logger.warn({ err: error, lease: leaseName }, 'lease renewal failed');
      if (this.lease && this.lease.expiresAt <= now) this.lose('lease expired while the database was unreachable');
    }
    this.metrics.leader.set(this.current() ? 1 : 0);
    return this.current();
  }

  /** The lease this replica holds as far as it knows: renewed, and not expired on its clock. */
  current(): Lease | undefined {
    if (this.lease && this.clock.now() < this.lease.expiresAt) return this.lease;
    return undefined;
  }

  /** Called when a guarded write found the epoch gone: this replica no longer leads. */
  deposed(lease: Lease): void {
    if (this.lease?.epoch === lease.epoch) this.lose('a guarded write found a newer epoch');
  }

  /** Gives the lease up (graceful shutdown), so another replica takes over without waiting. Safe to call twice. */
  async release(): Promise<void> {
    const lease = this.lease;
    if (!lease) return;
    this.lease = undefined;
    this.metrics.leader.set(0);
    await this.leases
      .release(this.db, lease)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'lease release failed; it expires on its own'));
    this.logger.info({ lease: lease.name, epoch: lease.epoch }, 'schedule lease released');
  }

  private lose(why: string): void {
    if (!this.lease) return;
    this.logger.warn({ lease: this.lease.name, epoch: this.lease.epoch, why }, 'no longer the schedule leader');
    this.metrics.leadershipChanges.inc({ change: 'lost' });
    this.metrics.leader.set(0);
    this.lease = undefined;
  }
}
