import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';

/** How an address's error rate is judged (config `CLIENT_ERROR_*`, `CLIENT_BLOCK_SECONDS`). */
export interface ErrorRatePolicy {
  windowSeconds: number;
  minRequests: number;
  ratePercent: number;
  blockSeconds: number;
}

/** SQL of `client_address_health`: one row per client address, its current window and block. */
@Injectable()
export class ClientAddressesRepository {
  constructor(private readonly db: Database) {}

  /** When the address's block ends, or `undefined` when it is not blocked. */
  async blockedUntil(address: string): Promise<Date | undefined> {
    const rows = await this.db.query<{ blocked_until: Date }>(
      `SELECT blocked_until FROM client_address_health WHERE address = $1 AND blocked_until > now()`,
      [address],
    );
    return rows[0]?.blocked_until;
  }

  /**
   * Counts one answer to the address in its window (a new window starts once the old one is over),
   * and blocks the address once the window holds at least `minRequests` answers of which
   * `ratePercent` or more were errors.
   */
  async record(address: string, isError: boolean, policy: ErrorRatePolicy): Promise<void> {
    // One upsert: a second UPDATE of the same row in the same statement would be ignored by Postgres.
    await this.db.query(
      `INSERT INTO client_address_health AS h (address, window_start, requests, errors)
       VALUES ($1, now(), 1, $2::int)
       ON CONFLICT (address) DO UPDATE SET
         window_start = CASE WHEN h.window_start <= now() - make_interval(secs => $3) THEN now() ELSE h.window_start END,
         requests = CASE WHEN h.window_start <= now() - make_interval(secs => $3) THEN 1 ELSE h.requests + 1 END,
         errors = CASE WHEN h.window_start <= now() - make_interval(secs => $3) THEN $2::int ELSE h.errors + $2::int END,
         blocked_until = CASE
           WHEN h.window_start > now() - make_interval(secs => $3)
                AND h.requests + 1 >= $4
                AND (h.errors + $2::int) * 100 >= $5 * (h.requests + 1)
           THEN now() + make_interval(secs => $6)
           ELSE h.blocked_until END`,
      [address, isError ? 1 : 0, policy.windowSeconds, policy.minRequests, policy.ratePercent, policy.blockSeconds],
    );
  }

}
