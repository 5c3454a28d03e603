import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { GatewayConfig } from '../config';
import type { Secret } from '../secret';

/** What a presented signed URL is worth. */
export type SignedUrlVerdict = 'valid' | 'invalid' | 'expired';

/** Methods a signed URL may be issued for: CSV uploads are `PUT`, export downloads `GET`. */
export type SignedUrlMethod = 'PUT' | 'GET';

/**
 * Signs and checks the URLs the API hands out for file transfers (CSV uploads, export downloads),
 * which work like presigned URLs: the signature is the credential (no API key), bound to the
 * method, the path (which names what is transferred, and for exports the tenant) and the expiry,
 * which travel in the query as `expires` (Unix seconds) and `signature` (base64url).
 */
export class UrlSigner {
  constructor(private readonly key: Buffer) {}

  /**
   * The configured `URL_SIGNING_SECRET`, else a key derived from the admin token (HKDF-SHA256 with
   * its own label), which every replica shares already; a signed URL reveals neither. The label
   * predates export downloads and stays, so upload URLs issued before an upgrade remain valid.
   */
  static fromSecrets(urlSigningSecret: Secret | undefined, adminToken: Secret): UrlSigner {
    if (urlSigningSecret) return new UrlSigner(Buffer.from(urlSigningSecret.reveal(), 'utf8'));
    const derived = hkdfSync('sha256', Buffer.from(adminToken.reveal(), 'utf8'), Buffer.alloc(0), 'trawl upload url signing v1', 32);
    return new UrlSigner(Buffer.from(derived));
  }

  static fromConfig(config: Pick<GatewayConfig, 'URL_SIGNING_SECRET' | 'ADMIN_TOKEN'>): UrlSigner {
    return UrlSigner.fromSecrets(config.URL_SIGNING_SECRET, config.ADMIN_TOKEN);
  }

  /** base64url HMAC-SHA256 of the method, the path and the expiry (Unix seconds), one per line. */
  sign(method: SignedUrlMethod, path: string, expiresAtSeconds: number): string {
    return createHmac('sha256', this.key).update(`${method}\n${path}\n${expiresAtSeconds}`).digest('base64url');
  }

  /** `path?expires=…&signature=…`, valid until `expiresAt` (rounded down to the second). */
  signedPath(method: SignedUrlMethod, path: string, expiresAt: Date): string {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    return `${path}?${new URLSearchParams({ expires: String(expires), signature: this.sign(method, path, expires) })}`;
  }

  /** Checks the signature first, so that a forged expiry reads as invalid rather than expired. */
  verify(method: SignedUrlMethod, path: string, expires: unknown, signature: unknown, now: Date): SignedUrlVerdict {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') return 'invalid';
    const expected = Buffer.from(this.sign(method, path, Number(expires)), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'valid';
  }
}
