import type { FetchOptionsV1 } from '@trawl/contracts';
import { FetchRequestError } from './fetch-request.errors';

/**
 * What the tenant gets for the target's status (fetch-details "original_status /
 * allowed_status_codes", "Costs"):
 * - `page`: the page is the answer, with `status`, billed;
 * - otherwise a `FetchRequestError` is thrown.
 */
export interface PageStatus {
  /** The status the gateway answers with. */
  status: number;
}

/**
 * Judges the target's final status:
 * - 2xx → 200 (the answer is the page; the target's own 2xx is in `target_status` and, with
 *   `original_status=true`, passed through);
 * - a status in `allowed_status_codes`, or any status with `original_status=true` → that status and
 *   the target's body, billed (the spec bills allowed codes; a pass-through is the tenant asking for
 *   the target's answer as it is, so it is billed alike);
 * - 404 and 410 → `RESP002` 404, billed (the spec bills 404/410; 410 has no code of its own);
 * - anything else → `RESP001` 422, free.
 *
 * @throws FetchRequestError for an answer the tenant gets as the service's own error.
 */
export function judgeTargetStatus(status: number, options: Pick<FetchOptionsV1, 'original_status' | 'allowed_status_codes'>): PageStatus {
  if (options.original_status || options.allowed_status_codes?.includes(status)) return { status };
  if (status >= 200 && status < 300) return { status: 200 };
  if (status === 404 || status === 410) {
    const detail = status === 404 ? 'The target page answered 404 Not Found.' : 'The target page answered 410 Gone.';
    throw new FetchRequestError('RESP002', detail, { billed: true, targetStatus: status });
  }
  throw new FetchRequestError(
    'RESP001',
    `The target answered ${status}; set original_status=true or allowed_status_codes=${status} to receive its answer.`,
    { targetStatus: status },
  );
}
