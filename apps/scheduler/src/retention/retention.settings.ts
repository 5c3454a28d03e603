export const RETENTION_SETTINGS = Symbol('RETENTION_SETTINGS');

/** Tunables of the retention sweeps (from config), with units. */
export interface RetentionSettings {
  /** How often the leader sweeps, ms. */
  sweepIntervalMs: number;
  /**
   * How long an expired CSV input slot or export record is kept after `expires_at`, ms, so that
   * asking for it still answers `file_input_expired` / `export_expired` rather than not found.
   * Staged CSV rows go at expiry: they are the bulk.
   */
  expiredKeptMs: number;
  /** Most rows one statement deletes (short transactions, no long locks). */
  batchSize: number;
}
