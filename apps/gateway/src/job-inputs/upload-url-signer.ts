import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../secret';

/** What a presented upload URL is worth. */
export type UploadUrlVerdict = 'valid' | 'invalid' | 'expired';

/**
 * Signs and checks upload URLs, which work like presigned URLs: the signature is the credential
 * (no API key), bound to the method, the path and the expiry, which travel in the query.
 */
export class UploadUrlSigner {
  constructor(private readonly key: Buffer) {}

  /**
   * The configured `URL_SIGNING_SECRET`, else a key derived from the admin token (HKDF-SHA256 with
   * its own label), which every replica shares already; an upload URL reveals neither.
   */
  static fromSecrets(urlSigningSecret: Secret | undefined, adminToken: Secret): UploadUrlSigner {
    if (urlSigningSecret) return new UploadUrlSigner(Buffer.from(urlSigningSecret.reveal(), 'utf8'));
    const derived = hkdfSync('sha256', Buffer.from(adminToken.reveal(), 'utf8'), Buffer.alloc(0), 'trawl upload url signing v1', 32);
    return new UploadUrlSigner(Buffer.from(derived));
  }

  /** base64url HMAC-SHA256 of `PUT`, the path and the expiry (Unix seconds). */
  sign(path: string, expiresAtSeconds: number): string {
    return createHmac('sha256', this.key).update(`PUT\n${path}\n${expiresAtSeconds}`).digest('base64url');
  }

  /** Checks the signature first, so that a forged expiry reads as invalid rather than expired. */
  verify(path: string, expires: unknown, signature: unknown, now: Date): UploadUrlVerdict {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') return 'invalid';
    const expected = Buffer.from(this.sign(path, Number(expires)), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'valid';
  }
}
