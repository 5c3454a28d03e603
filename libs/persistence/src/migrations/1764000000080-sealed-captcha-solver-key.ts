import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tenant's CAPTCHA solver key sealed at rest (AES-GCM under `SECRETS_KEY`, as webhook signing
 * secrets). Existing plaintext keys are not converted here (a migration has no `SECRETS_KEY`): they
 * are still read from `captcha_solver_key` until the key is next set, which seals it and clears
 * the plaintext column (docs/decisions/fetch-api.md, "CAPTCHA solver keys at rest").
 */
export class SealedCaptchaSolverKey1764000000080 implements MigrationInterface {
  name = 'SealedCaptchaSolverKey1764000000080';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants ADD COLUMN captcha_solver_key_sealed bytea`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Sealed keys cannot be opened here: their tenants lose their solver key.
    await q.query(`ALTER TABLE tenants DROP COLUMN captcha_solver_key_sealed`);
  }
}
