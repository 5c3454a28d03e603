import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';

/** How an address's error rate is judged (config `CLIENT_ERROR_*`, `CLIENT_BLOCK_SECONDS`). */
export interface ErrorRatePolicy {
  windowSeconds: number;
  minRequests: number;
  ratePercent: number;
  blockSeconds: number;
}

/** Answers to one address since the last write: how many, and how many of them were the client's errors. */
export interface AddressOutcomes {
  address: string;
  requests: number;
  errors: number;
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
   * Adds answers to each address's window in one statement (a new window starts once the old one
   * is over), blocks an address once its window holds at least `minRequests` answers of which
   * `ratePercent` or more were errors, and returns each address's block (`null`: none in force).
   * Addresses must be distinct.
   */
  async record(outcomes: readonly AddressOutcomes[], policy: ErrorRatePolicy): Promise<{ address: string; blockedUntil: Date | null }[]> {
    if (outcomes.length === 0) return [];
    // One upsert per address: a second UPDATE of the same row in the same statement would fail.
    const rows = await this.db.query<{ address: string; blocked_until: Date | null }>(
      `WITH o AS (SELECT * FROM unnest($1::inet[], $2::int[], $3::int[]) AS o(address, requests, errors))
       INSERT INTO client_address_health AS h (address, window_start, requests, errors, blocked_until)
       SELECT o.address, now(), o.requests, o.errors,
              CASE WHEN o.requests >= $5 AND o.errors * 100 >= $6 * o.requests THEN now() + make_interval(secs => $7) END
         FROM o
       ON CONFLICT (address) DO UPDATE SET
         window_start = CASE WHEN h.window_start <= now() - make_interval(secs => $4) THEN now() ELSE h.window_start END,
         requests = CASE WHEN h.window_start <= now() - make_interval(secs => $4) THEN excluded.requests ELSE h.requests + excluded.requests END,
         errors = CASE WHEN h.window_start <= now() - make_interval(secs => $4) THEN excluded.errors ELSE h.errors + excluded.errors END,
         blocked_until = CASE
           WHEN h.window_start > now() - make_interval(secs => $4)
                AND h.requests + excluded.requests >= $5
                AND (h.errors + excluded.errors) * 100 >= $6 * (h.requests + excluded.requests)
           THEN now() + make_interval(secs => $7)
           WHEN h.window_start <= now() - make_interval(secs => $4) AND excluded.blocked_until IS NOT NULL
           THEN excluded.blocked_until
           ELSE h.blocked_until END
       RETURNING host(h.address) AS address, CASE WHEN h.blocked_until > now() THEN h.blocked_until END AS blocked_until`,
      [
        outcomes.map((o) => o.address),
        outcomes.map((o) => o.requests),
        outcomes.map((o) => o.errors),
        policy.windowSeconds,
        policy.minRequests,
        policy.ratePercent,
        policy.blockSeconds,
      ],
    );
    return rows.map((row) => ({ address: row.address, blockedUntil: row.blocked_until }));
  }
}
