import { createHmac, randomBytes } from 'node:crypto';

/** A tenant's signing key, its secret opened: what a delivery is signed with. */
export interface SigningKey {
  kid: string;
  /** The secret as shown to the tenant: base64 of 32 random bytes. */
  secret: string;
}

/** A new signing secret: 32 random bytes, base64 (spec-batch-api §4 POST /hmac/keys/rotate). */
export function newSigningSecret(): string {
  return randomBytes(32).toString('base64');
}

/** A new key id: `kid_` and 16 hex characters; public (receivers pick the secret by it). */
export function newKeyId(): string {
  return `kid_${randomBytes(8).toString('hex')}`;
}

/**
 * The lowercase hex HMAC-SHA256 of `<t>.` + the raw body, keyed with the base64-DECODED secret
 * (spec-batch-api §6 rule 2). `body` must be the exact bytes sent.
 */
export function signatureDigest(secret: string, unixSeconds: number, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'base64')).update(`${unixSeconds}.`).update(body).digest('hex');
}

/** `X-Signature: t=<unix_seconds>,v1=<hex>,kid=<kid>`, computed per attempt (`t` is the send time). */
export function signatureHeader(key: SigningKey, unixSeconds: number, body: string | Buffer): string {
  return `t=${unixSeconds},v1=${signatureDigest(key.secret, unixSeconds, body)},kid=${key.kid}`;
}
