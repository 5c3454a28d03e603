import { Secret } from '../secret';
import { UploadUrlSigner } from './upload-url-signer';

describe(UploadUrlSigner.name, () => {
  const signer = new UploadUrlSigner(Buffer.from('k'.repeat(32)));
  const path = '/uploads/job_inputs/0b6f2f9e-2c1d-4d35-9d7e-3f1a2b3c4d5e';
  const now = new Date('2025-06-01T00:00:00Z');
  const inOneHour = now.getTime() / 1000 + 3600;

  describe('verify', () => {
    it('accepts its own signature before the expiry', () => {
      expect(signer.verify(path, String(inOneHour), signer.sign(path, inOneHour), now)).toBe('valid');
    });

    it('reads a genuine signature past its expiry as expired', () => {
      const past = now.getTime() / 1000 - 1;
      expect(signer.verify(path, String(past), signer.sign(path, past), now)).toBe('expired');
    });

    it('refuses a signature moved to another path, a changed expiry, or another key', () => {
      const signature = signer.sign(path, inOneHour);
      expect(signer.verify(`${path.slice(0, -1)}f`, String(inOneHour), signature, now)).toBe('invalid');
      expect(signer.verify(path, String(inOneHour + 86_400), signature, now)).toBe('invalid');
      const other = new UploadUrlSigner(Buffer.from('x'.repeat(32)));
      expect(other.verify(path, String(inOneHour), signature, now)).toBe('invalid');
    });

    it('refuses missing or malformed query values', () => {
      const signature = signer.sign(path, inOneHour);
      expect(signer.verify(path, undefined, signature, now)).toBe('invalid');
      expect(signer.verify(path, String(inOneHour), undefined, now)).toBe('invalid');
      expect(signer.verify(path, '1e10', signature, now)).toBe('invalid');
      expect(signer.verify(path, [String(inOneHour)], signature, now)).toBe('invalid');
      expect(signer.verify(path, String(inOneHour), `${signature}x`, now)).toBe('invalid');
    });
  });

  describe('fromSecrets', () => {
    it('derives the same key from the same admin token, another from another', () => {
      const a = UploadUrlSigner.fromSecrets(undefined, new Secret('admin-token-0123456789'));
      const b = UploadUrlSigner.fromSecrets(undefined, new Secret('admin-token-0123456789'));
      const c = UploadUrlSigner.fromSecrets(undefined, new Secret('admin-token-9876543210'));
      expect(a.sign(path, 1)).toBe(b.sign(path, 1));
      expect(c.sign(path, 1)).not.toBe(a.sign(path, 1));
    });

    it('prefers the configured URL signing secret', () => {
      const configured = UploadUrlSigner.fromSecrets(new Secret('s'.repeat(32)), new Secret('admin-token-0123456789'));
      expect(configured.sign(path, 1)).toBe(new UploadUrlSigner(Buffer.from('s'.repeat(32))).sign(path, 1));
    });
  });
});
