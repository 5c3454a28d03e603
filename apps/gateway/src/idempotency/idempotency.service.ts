import { Injectable } from '@nestjs/common';
import { Sql } from '@trawl/persistence';
import { RequestError, RequestErrorCode } from '../problems/request.errors';
import { bodyHash } from './canonical-json';
import { IdempotencyError, IdempotencyErrorCode } from './idempotency.errors';
import { IdempotencyKeyId, IdempotencyRepository } from './idempotency.repository';

/** Longest `Idempotency-Key`, in characters (spec-crawl-api §8). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** An `in_flight` key untouched for this long belongs to a request that died; a retry takes it over. */
export const IDEMPOTENCY_TAKEOVER_AFTER_SECONDS = 60;

/** The right to perform the request of an idempotency key; complete it or release it. */
export interface IdempotencyClaim extends IdempotencyKeyId {
  readonly token: string;
}

export type IdempotencyOutcome =
  /** First request with this key (or the takeover of a dead one): go ahead, then complete or release. */
  | { kind: 'claimed'; claim: IdempotencyClaim }
  /** A request with this key and body already succeeded: answer with its resource, do nothing. */
  | { kind: 'replay'; resourceId: string };

/**
 * `Idempotency-Key` handling (spec-crawl-api §4 rule 3). The `in_flight` row is committed on its own
 * before the work starts, so a concurrent retry sees it and gets 409 instead of doing the work twice.
 */
@Injectable()
export class IdempotencyService {
  constructor(private readonly keys: IdempotencyRepository) {}

  /**
   * The key from the header value, or `undefined` when the header is absent.
   * @throws RequestError `invalid_request` when it is empty or longer than 255 characters.
   */
  static keyFromHeader(header: string | string[] | undefined): string | undefined {
    if (header === undefined) return undefined;
    if (typeof header !== 'string' || header.length < 1 || header.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new RequestError(
        RequestErrorCode.InvalidRequest,
        `\`Idempotency-Key\` must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, sent once.`,
        { parameter: 'Idempotency-Key' },
      );
    }
    return header;
  }

  /**
   * Claims `key` for a request with `parsedBody`, or finds the resource an earlier request made.
   * @throws IdempotencyError `idempotency_key_reused` (other body), `idempotency_request_in_flight`.
   */
  async begin(id: IdempotencyKeyId, parsedBody: unknown): Promise<IdempotencyOutcome> {
    const hash = bodyHash(parsedBody);
    // A few rounds: between our INSERT and SELECT, the holder may release or be taken over.
    for (let round = 0; round < 3; round++) {
      const token = await this.keys.insertInFlight(id, hash);
      if (token) return { kind: 'claimed', claim: { ...id, token } };
      const existing = await this.keys.find(id, IDEMPOTENCY_TAKEOVER_AFTER_SECONDS);
      if (!existing) continue;
      if (!existing.bodyHash.equals(hash)) {
        throw new IdempotencyError(
          IdempotencyErrorCode.KeyReused,
          'This Idempotency-Key was used with a different body; use a new key for a new request.',
        );
      }
      if (existing.state === 'done' && existing.resourceId) return { kind: 'replay', resourceId: existing.resourceId };
      if (!existing.stale) break;
      const takenOver = await this.keys.takeOver(id, existing.holderToken);
      if (takenOver) return { kind: 'claimed', claim: { ...id, token: takenOver } };
    }
    throw inFlight();
  }

  /**
   * Marks the claim `done` with the resource, inside the transaction that creates the resource.
   * @throws IdempotencyError `idempotency_request_in_flight` when the claim was taken over meanwhile
   * (the transaction must roll back: the other request is doing the work).
   */
  async complete(sql: Sql, claim: IdempotencyClaim, resourceId: string): Promise<void> {
    if (!(await this.keys.markDone(sql, claim, claim.token, resourceId))) throw inFlight();
  }

  /** Gives the key back after a refused or failed request, so a retry can use it. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.keys.release(claim, claim.token);
  }
}

function inFlight(): IdempotencyError {
  return new IdempotencyError(
    IdempotencyErrorCode.RequestInFlight,
    'A request with this Idempotency-Key is still in progress; retry in a few seconds.',
  );
}
