import { z } from 'zod';
import { envInt } from '@trawl/config';
import { Secret } from '../secret';

/**
 * The gateway's variables for CSV inputs and bulk exports of the Batch API (spec-batch-api §8),
 * spread into its config schema.
 */
export const batchFilesConfigShape = {
  /**
   * Origin the API is reached at from outside (`https://api.example.com`), used in upload and export
   * URLs. When unset, the URLs are built from the request's own `Host` (and protocol).
   */
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .optional()
    .transform((value) => value?.replace(/\/+$/, '')),
  /**
   * Key of the HMAC that signs CSV upload URLs (at least 32 characters). A {@link Secret}. When
   * unset, a key derived from `ADMIN_TOKEN` is used, so every replica agrees without more setup.
   */
  URL_SIGNING_SECRET: z
    .string()
    .min(32, { error: 'must be at least 32 characters' })
    .optional()
    .transform((value) => (value === undefined ? undefined : new Secret(value))),
  /**
   * CSV uploads and export downloads running at once in this replica; more answer
   * `503 transfers_busy`. Each holds one Postgres connection for its whole length, so this must stay
   * below DATABASE_POOL_SIZE, leaving the rest of the pool to the API's short statements. Default:
   * half the pool, at most 4 (and 1 with a pool of 1 or 2). See `fileTransfersMax` in config.ts.
   */
  FILE_TRANSFERS_MAX: z.coerce.number().int().min(1).max(500).optional(),
  /** Largest CSV upload, in bytes. Default 50,000,000 (spec §8: 50 MB). */
  CSV_UPLOAD_MAX_BYTES: envInt(50_000_000, 1_024, 1024 * 1024 * 1024),
  /**
   * How much of a refused upload's body is still read and dropped, in bytes (default 4 MiB), so the
   * client can read the answer before the connection closes; past this the connection is closed.
   */
  CSV_UPLOAD_DRAIN_MAX_BYTES: envInt(4 * 1024 * 1024, 0, 1024 * 1024 * 1024),
  /** Most data rows in a CSV upload. Default 100,000 (spec §8). */
  CSV_UPLOAD_MAX_ROWS: envInt(100_000, 1, 1_000_000),
  /** Largest sum of result bodies a run may have to be exported as one archive, in bytes. Default 1 GiB (spec §8). */
  EXPORT_MAX_BODY_BYTES: envInt(1024 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
};
