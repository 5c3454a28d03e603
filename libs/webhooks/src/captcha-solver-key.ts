import type { SecretBox } from './secret-box';

/** Additional data a tenant's sealed CAPTCHA solver key is bound to (see `SecretBox`). */
export function captchaSolverKeyContext(tenantId: string): string {
  return `captcha-solver-key:${tenantId}`;
}

/**
 * A tenant's CAPTCHA solver key as stored: sealed (`captcha_solver_key_sealed`), or in plaintext
 * (`captcha_solver_key`) when it was set before keys were sealed and not set again since.
 */
export interface StoredSolverKey {
  sealed: Buffer | null;
  plaintext: string | null;
}

/** Seals a solver key for the tenant's row. */
export function sealCaptchaSolverKey(box: SecretBox, tenantId: string, key: string): Buffer {
  return box.seal(Buffer.from(key, 'utf8'), captchaSolverKeyContext(tenantId));
}

/**
 * The solver key in clear, the sealed form preferred; `undefined` when a sealed key cannot be
 * opened (no `SECRETS_KEY` here, or another one) or none is stored. Never throws: the caller goes on
 * without a solver and logs why, without the key.
 */
export function openCaptchaSolverKey(box: SecretBox | undefined, tenantId: string, stored: StoredSolverKey): string | undefined {
  if (stored.sealed) {
    if (!box) return undefined;
    try {
      return box.open(stored.sealed, captchaSolverKeyContext(tenantId)).toString('utf8');
    } catch {
      return undefined;
    }
  }
  return stored.plaintext ?? undefined;
}
