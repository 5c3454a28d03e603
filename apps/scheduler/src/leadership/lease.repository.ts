import { Injectable } from '@nestjs/common';
import type { Sql } from '@trawl/persistence';

/** A lease as its holder last wrote it. `epoch` grows by one on every change of holder. */
export interface Lease {
  name: string;
  holder: string;
  epoch: number;
  expiresAt: Date;
}

interface LeaseRow {
  name: string;
  holder: string;
  epoch: string;
  expires_at: Date;
}

const RETURNING = 'RETURNING name, holder, epoch, expires_at';

/**
 * SQL of the `leases` table (init migration). Times come from the caller's clock, so tests drive
 * expiry; replicas' clocks must agree to well within a lease's lifetime (NTP does).
 */
@Injectable()
export class LeaseRepository {
  /**
   * Takes the lease if it is free, expired, or already ours, with a new epoch. Blocks while a firing
   * transaction of the current holder holds the row (`holdsEpoch`), so a takeover never lands in
   * the middle of a guarded write.
   */
  async acquire(sql: Sql, name: string, holder: string, now: Date, ttlMs: number): Promise<Lease | undefined> {
    const [row] = await sql.query<LeaseRow>(
      `INSERT INTO leases (name, holder, epoch, expires_at)
       VALUES ($1, $2, 1, $3::timestamptz + $4 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE
         SET holder = EXCLUDED.holder, epoch = leases.epoch + 1, expires_at = EXCLUDED.expires_at
         WHERE leases.expires_at <= $3::timestamptz OR leases.holder = EXCLUDED.holder
       ${RETURNING}`,
      [name, holder, now, ttlMs],
    );
    return row && toLease(row);
  }

  /** Extends the lease if this holder still holds this epoch (even past its expiry, if no one took it). */
  async renew(sql: Sql, lease: Lease, now: Date, ttlMs: number): Promise<Lease | undefined> {
    const [row] = await sql.query<LeaseRow>(
      `UPDATE leases SET expires_at = $4::timestamptz + $5 * interval '1 millisecond'
       WHERE name = $1 AND holder = $2 AND epoch = $3
       ${RETURNING}`,
      [lease.name, lease.holder, lease.epoch, now, ttlMs],
    );
    return row && toLease(row);
  }

  /** Gives the lease up at once (graceful shutdown), so another replica takes over without waiting. */
  async release(sql: Sql, lease: Lease): Promise<void> {
    await sql.query(`UPDATE leases SET expires_at = '-infinity' WHERE name = $1 AND holder = $2 AND epoch = $3`, [
      lease.name,
      lease.holder,
      lease.epoch,
    ]);
  }

  /**
   * The epoch guard of a leader's write: true if the lease still has this holder and epoch, and the
   * row stays share-locked until the caller's transaction ends, so no takeover can commit before it.
   */
  async holdsEpoch(sql: Sql, lease: Lease): Promise<boolean> {
    const rows = await sql.query(`SELECT 1 FROM leases WHERE name = $1 AND holder = $2 AND epoch = $3 FOR SHARE`, [
      lease.name,
      lease.holder,
      lease.epoch,
    ]);
    return rows.length > 0;
  }
}

function toLease(row: LeaseRow): Lease {
  return { name: row.name, holder: row.holder, epoch: Number(row.epoch), expiresAt: new Date(row.expires_at) };
}
