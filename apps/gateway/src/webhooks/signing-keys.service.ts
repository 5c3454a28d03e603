import { Inject, Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';
import {
  type LiveSigningKeyStatus,
  newKeyId,
  newSigningSecret,
  SecretBox,
  SigningKey,
  signingKeyContext,
  SigningKeyRow,
  SigningKeysRepository,
} from '@trawl/webhooks';
import { WebhookError, WebhookErrorCode } from './webhooks.errors';
import { SECRET_BOX } from './webhooks.tokens';

/** A key just made: the only time its secret is shown. */
export interface IssuedKey {
  kid: string;
  secret: string;
  createdAt: Date;
  status: LiveSigningKeyStatus;
}

/**
 * Signing keys of a tenant (spec-batch-api §4 /hmac/keys). Rotation: with no active key, rotate
 * creates it; with one, rotate stages a candidate (replacing a candidate already staged, which has
 * never signed anything); finalize makes the candidate active and retires the old key.
 */
@Injectable()
export class SigningKeysService {
  constructor(
    private readonly db: Database,
    private readonly keys: SigningKeysRepository,
    @Inject(SECRET_BOX) private readonly box: SecretBox | undefined,
  ) {}

  async rotate(tenantId: string): Promise<IssuedKey> {
    const box = this.requireBox();
    return this.db.transaction(async (sql) => {
      await this.keys.lockTenant(sql, tenantId);
      const active = await this.keys.findByStatus(sql, tenantId, 'active');
      const status = active ? 'candidate' : 'active';
      if (status === 'candidate') await this.keys.retire(sql, tenantId, 'candidate');
      const kid = newKeyId();
      const secret = newSigningSecret();
      const row = await this.keys.insert(
        sql,
        tenantId,
        kid,
        status,
        box.seal(Buffer.from(secret, 'utf8'), signingKeyContext(tenantId, kid)),
      );
      return { kid, secret, createdAt: row.createdAt, status };
    });
  }

  /** @throws WebhookError `no_key_rotation_in_progress` when no candidate is staged. */
  async finalize(tenantId: string): Promise<SigningKeyRow> {
    this.requireBox();
    return this.db.transaction(async (sql) => {
      await this.keys.lockTenant(sql, tenantId);
      const candidate = await this.keys.findByStatus(sql, tenantId, 'candidate');
      if (!candidate) {
        throw new WebhookError(
          WebhookErrorCode.NoKeyRotationInProgress,
          'No candidate key is staged: call POST /v1/hmac/keys/rotate first.',
        );
      }
      await this.keys.retire(sql, tenantId, 'active');
      const promoted = await this.keys.promoteCandidate(sql, tenantId);
      return promoted ?? candidate;
    });
  }

  /**
   * Drops the staged candidate (it never signed anything); the active key goes on signing.
   *
   * @throws WebhookError `no_key_rotation_in_progress` when no candidate is staged.
   */
  async cancelRotation(tenantId: string): Promise<void> {
    await this.db.transaction(async (sql) => {
      await this.keys.lockTenant(sql, tenantId);
      if (!(await this.keys.findByStatus(sql, tenantId, 'candidate'))) {
        throw new WebhookError(WebhookErrorCode.NoKeyRotationInProgress, 'No candidate key is staged: there is no rotation to cancel.');
      }
      await this.keys.retire(sql, tenantId, 'candidate');
    });
  }

  async list(tenantId: string): Promise<SigningKeyRow[]> {
    return this.keys.list(this.db, tenantId);
  }

  /** Whether the tenant has an active key (what a signed webhook needs); opens no secret. */
  async hasActiveKey(tenantId: string): Promise<boolean> {
    return (await this.keys.findByStatus(this.db, tenantId, 'active')) !== undefined;
  }

  /**
   * The active key with its secret opened, for signing; `undefined` when the tenant has none.
   * @throws WebhookError `signing_unavailable` when the secret cannot be opened here (no SECRETS_KEY,
   *   or not the one that sealed it).
   */
  async activeKey(tenantId: string): Promise<SigningKey | undefined> {
    const row = await this.keys.findByStatus(this.db, tenantId, 'active');
    if (!row) return undefined;
    const box = this.requireBox();
    let secret: string;
    try {
      secret = box.open(row.secretSealed, signingKeyContext(tenantId, row.kid)).toString('utf8');
    } catch {
      // SECRETS_KEY changed since the key was made, or the row is damaged: retrying will not help,
      // a new key will.
      throw new WebhookError(
        WebhookErrorCode.SigningUnavailable,
        `The active signing key ${row.kid} cannot be used on this installation; rotate to a new one with POST /v1/hmac/keys/rotate and finalize it.`,
      );
    }
    return { kid: row.kid, secret };
  }

  private requireBox(): SecretBox {
    if (!this.box) {
      throw new WebhookError(WebhookErrorCode.SigningUnavailable, 'Webhook signing is not configured on this installation.');
    }
    return this.box;
  }
}
