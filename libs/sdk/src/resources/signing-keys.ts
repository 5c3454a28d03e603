import type { FinalizedSigningKey, IssuedSigningKey, SigningKeyList, WebhookTestRequest, WebhookTestResult } from '../generated/api-types';
import type { Transport } from '../http/transport';

/** The account's webhook signing keys, and test deliveries. */
export class SigningKeysResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Creates the active key, or stages a candidate beside it: give receivers the candidate's
   * secret, then `finalizeRotation` makes it the one deliveries are signed with. The `secret` is
   * shown this one time. Not retried: a resend would stage another key.
   */
  rotate(options: { signal?: AbortSignal } = {}): Promise<IssuedSigningKey> {
    return this.transport.json<IssuedSigningKey>({
      method: 'POST',
      path: '/v1/hmac/keys/rotate',
      retrySafe: false,
      signal: options.signal,
    });
  }

  /** Makes the candidate the active key and retires the old one. */
  finalizeRotation(options: { signal?: AbortSignal } = {}): Promise<FinalizedSigningKey> {
    return this.transport.json<FinalizedSigningKey>({
      method: 'POST',
      path: '/v1/hmac/keys/rotate/finalize',
      retrySafe: false,
      signal: options.signal,
    });
  }

  /** Drops the staged candidate; the active key signs on. Safe to resend (a second answers 409). */
  async cancelRotation(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.transport.send({ method: 'DELETE', path: '/v1/hmac/keys/rotate', retrySafe: true, signal: options.signal });
  }

  list(options: { signal?: AbortSignal } = {}): Promise<SigningKeyList> {
    return this.transport.json<SigningKeyList>({ method: 'GET', path: '/v1/hmac/keys', retrySafe: true, signal: options.signal });
  }

  /** Sends a `webhook.test` event to `url`, signed like real deliveries when `signature` is true. */
  testWebhook(request: WebhookTestRequest, options: { signal?: AbortSignal } = {}): Promise<WebhookTestResult> {
    return this.transport.json<WebhookTestResult>({
      method: 'POST',
      path: '/v1/webhook/test',
      json: request,
      retrySafe: false,
      signal: options.signal,
    });
  }
}
