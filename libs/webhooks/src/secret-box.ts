import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts signing secrets at rest with AES-256-GCM under the operator's `SECRETS_KEY`. The sealed
 * form is `version (1 byte) | iv (12) | tag (16) | ciphertext`; the version byte leaves room for
 * re-keying later. `context` (e.g. `<tenant>:<kid>`) is bound as additional data, so a sealed secret
 * copied onto another row does not open. The key never reaches a log line.
 */
export class SecretBox {
  readonly #key: Buffer;

  /** @param key exactly 32 bytes. */
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error(`SECRETS_KEY must be 32 bytes, got ${key.length}`);
    this.#key = Buffer.from(key);
  }

  /** From the base64 text of `SECRETS_KEY`; throws when it does not decode to 32 bytes. */
  static fromBase64(text: string): SecretBox {
    return new SecretBox(Buffer.from(text, 'base64'));
  }

  seal(plaintext: Buffer, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** @throws Error when the data was not sealed by this key for this context (or was altered). */
  open(sealed: Buffer, context: string): Buffer {
    if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) throw new Error('Not a sealed secret of version 1');
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
  }

  toString(): string {
    return '[SecretBox]';
  }

  toJSON(): string {
    return '[SecretBox]';
  }

  [inspect.custom](): string {
    return '[SecretBox]';
  }
}
