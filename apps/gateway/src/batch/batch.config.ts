import { envInt } from '@trawl/config';

/** The gateway's Batch API variables, spread into its config schema. */
export const batchConfigShape = {
  /**
   * Largest body of `POST /v1/jobs` and `POST /v1/jobs/{id}/tasks`, in bytes. Default 64 MiB: room
   * for 100,000 tasks with external ids and small metadata (other routes keep `HTTP_BODY_LIMIT_BYTES`).
   */
  BATCH_BODY_LIMIT_BYTES: envInt(64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** Most bytes of result bodies one page of `GET /v1/jobs/{id}/results` carries. Default 32 MiB. */
  BATCH_RESULTS_PAGE_BYTES: envInt(32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** How often a gateway looks for large submissions whose ingest was cut off, in ms. Default 15,000. */
  BATCH_INGEST_RECOVERY_INTERVAL_MS: envInt(15_000, 100, 3_600_000),
};
