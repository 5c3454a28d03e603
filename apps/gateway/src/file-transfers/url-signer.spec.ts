import { createHmac } from 'node:crypto';
import { Secret } from '../secret';
import { UrlSigner } from './url-signer';

describe(UrlSigner.name, () => {
  const signer = new UrlSigner(Buffer.from('k'.repeat(32)));
  const path = '/uploads/job_inputs/0b6f2f9e-2c1d-4d35-9d7e-3f1a2b3c4d5e';
  const now = new Date('2025-06-01T00:00:00Z');
  const inOneHour = now.getTime() / 1000 + 3600;

  describe('verify', () => {
    it('accepts its own signature before the expiry', () => {
      expect(signer.verify('PUT', path, String(inOneHour), signer.sign('PUT', path, inOneHour), now)).toBe('valid');
    });

    it('reads a genuine signature past its expiry as expired', () => {
      const past = now.getTime() / 1000 - 1;
      expect(signer.verify('GET', path, String(past), signer.sign('GET', path, past), now)).toBe('expired');
    });

    it('refuses a signature moved to another method, another path, a changed expiry, or another key', () => {
      const signature = signer.sign('PUT', path, inOneHour);
      expect(signer.verify('GET', path, String(inOneHour), signature, now)).toBe('invalid');
      expect(signer.verify('PUT', `${path.slice(0, -1)}f`, String(inOneHour), signature, now)).toBe('invalid');
      expect(signer.verify('PUT', path, String(inOneHour + 86_400), signature, now)).toBe('invalid');
      const other = new UrlSigner(Buffer.from('x'.repeat(32)));
      expect(other.verify('PUT', path, String(inOneHour), signature, now)).toBe('invalid');
    });

    it('refuses missing or malformed query values', () => {
      const signature = signer.sign('PUT', path, inOneHour);
      expect(signer.verify('PUT', path, undefined, signature, now)).toBe('invalid');
      expect(signer.verify('PUT', path, String(inOneHour), undefined, now)).toBe('invalid');
      expect(signer.verify('PUT', path, '1e10', signature, now)).toBe('invalid');
      expect(signer.verify('PUT', path, [String(inOneHour)], signature, now)).toBe('invalid');
      expect(signer.verify('PUT', path, String(inOneHour), `${signature}x`, now)).toBe('invalid');
    });
  });

  describe('signedPath', () => {
    it('puts the expiry in seconds and a signature that verifies in the query', () => {
      const signed = new URL(signer.signedPath('GET', path, new Date(inOneHour * 1000 + 999)), 'http://x');
      expect(signed.pathname).toBe(path);
      expect(signed.searchParams.get('expires')).toBe(String(inOneHour));
      expect(signer.verify('GET', path, signed.searchParams.get('expires'), signed.searchParams.get('signature'), now)).toBe('valid');
    });
  });

  describe('fromSecrets', () => {
    it('derives the same key from the same admin token, another from another', () => {
      const a = UrlSigner.fromSecrets(undefined, new Secret('admin-token-0123456789'));
      const b = UrlSigner.fromSecrets(undefined, new Secret('admin-token-0123456789'));
      const c = UrlSigner.fromSecrets(undefined, new Secret('admin-token-9876543210'));
      expect(a.sign('PUT', path, 1)).toBe(b.sign('PUT', path, 1));
      expect(c.sign('PUT', path, 1)).not.toBe(a.sign('PUT', path, 1));
    });

    it('prefers the configured URL signing secret', () => {
      const configured = UrlSigner.fromSecrets(new Secret('s'.repeat(32)), new Secret('admin-token-0123456789'));
      expect(configured.sign('PUT', path, 1)).toBe(new UrlSigner(Buffer.from('s'.repeat(32))).sign('PUT', path, 1));
    });

    it('signs PUT exactly as upload URLs were signed before downloads shared the signer', () => {
      // Upload URLs already handed out must stay valid: HMAC-SHA256 of "PUT\n<path>\n<expires>".
      expect(signer.sign('PUT', path, 1)).toBe(createHmac('sha256', 'k'.repeat(32)).update(`PUT\n${path}\n1`).digest('base64url'));
    });
  });
});
