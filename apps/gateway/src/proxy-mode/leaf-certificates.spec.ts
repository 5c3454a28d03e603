import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CertificateAuthorityError,
  createCertificateAuthority,
  createCertificateAuthorityAsync,
  loadCertificateAuthority,
} from './certificate-authority';
import { LeafCertificates } from './leaf-certificates';

describe(LeafCertificates.name, () => {
  const ca = createCertificateAuthority({ commonName: 'Test proxy CA' });
  const caCert = new X509Certificate(ca.certPem);

  describe('certificatePemFor', () => {
    it('issues a certificate for the host, signed by the CA, with the host as subjectAltName', async () => {
      const leaf = new X509Certificate(await new LeafCertificates(ca).certificatePemFor('Shop.test'));
      expect(leaf.subjectAltName).toBe('DNS:shop.test');
      expect(leaf.checkHost('shop.test')).toBe('shop.test');
      expect(leaf.checkIssued(caCert)).toBe(true);
      expect(leaf.verify(caCert.publicKey)).toBe(true);
      expect(leaf.ca).toBe(false);
    });

    it('names an IP literal as an IP address', async () => {
      const leaf = new X509Certificate(await new LeafCertificates(ca).certificatePemFor('127.0.0.1'));
      expect(leaf.subjectAltName).toBe('IP Address:127.0.0.1');
      expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    });

    it('reuses a host certificate and evicts the least recently used', async () => {
      const leaves = new LeafCertificates(ca, { maxEntries: 2 });
      const first = await leaves.certificatePemFor('a.test');
      await leaves.certificatePemFor('b.test');
      expect(await leaves.certificatePemFor('a.test')).toBe(first);
      await leaves.certificatePemFor('c.test'); // evicts b.test, the least recently used
      expect(leaves.issued).toBe(3);
      expect(await leaves.certificatePemFor('a.test')).toBe(first);
      await leaves.certificatePemFor('b.test');
      expect(leaves.issued).toBe(4);
    });

    it('makes a CA given as a maker when first needed, once for CONNECTs at the same time, and signs every leaf with it', async () => {
      let made: ReturnType<typeof createCertificateAuthority> | undefined;
      let makes = 0;
      const leaves = new LeafCertificates(async () => {
        makes++;
        made = await createCertificateAuthorityAsync({ commonName: 'Made on demand' });
        return made;
      });
      expect(makes).toBe(0);
      const [first, second, again] = (
        await Promise.all([leaves.certificatePemFor('a.test'), leaves.certificatePemFor('b.test'), leaves.certificatePemFor('a.test')])
      ).map((pem) => new X509Certificate(pem));
      expect(makes).toBe(1);
      expect(leaves.issued).toBe(2);
      expect(again.fingerprint256).toBe(first.fingerprint256);
      const madeCert = new X509Certificate(made!.certPem);
      expect([first.verify(madeCert.publicKey), second.verify(madeCert.publicKey)]).toEqual([true, true]);
      // One leaf key for all hosts.
      expect(first.publicKey.export({ type: 'spki', format: 'pem' })).toBe(second.publicKey.export({ type: 'spki', format: 'pem' }));
    });

    it('tries again on the next CONNECT when making the CA failed', async () => {
      let makes = 0;
      const leaves = new LeafCertificates(async () => {
        makes++;
        if (makes === 1) throw new Error('entropy ran out');
        return createCertificateAuthority();
      });
      await expect(leaves.certificatePemFor('a.test')).rejects.toThrow('entropy ran out');
      expect(new X509Certificate(await leaves.certificatePemFor('a.test')).subjectAltName).toBe('DNS:a.test');
      expect(makes).toBe(2);
    });

    it('never outlives the CA and starts an hour back', async () => {
      const shortCa = createCertificateAuthority({ validityDays: 2 });
      const now = Date.now();
      const leaf = new X509Certificate(
        await new LeafCertificates(shortCa, { validityDays: 30, now: () => now }).certificatePemFor('x.test'),
      );
      expect(new Date(leaf.validTo).getTime()).toBeLessThanOrEqual(new Date(new X509Certificate(shortCa.certPem).validTo).getTime());
      expect(new Date(leaf.validFrom).getTime()).toBeLessThanOrEqual(now - 3_599_000);
    });
  });
});

describe(loadCertificateAuthority.name, () => {
  const ca = createCertificateAuthority();

  it('reads PEM text or PEM files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-ca-'));
    writeFileSync(join(dir, 'ca.crt'), ca.certPem);
    writeFileSync(join(dir, 'ca.key'), ca.keyPem);
    expect(loadCertificateAuthority(ca.certPem, ca.keyPem).certPem).toBe(ca.certPem);
    expect(loadCertificateAuthority(join(dir, 'ca.crt'), join(dir, 'ca.key')).certPem).toBe(ca.certPem);
  });

  it('refuses a key of another certificate, naming the variable', () => {
    const other = createCertificateAuthority();
    expect(() => loadCertificateAuthority(ca.certPem, other.keyPem)).toThrow(/PROXY_MODE_CA_KEY does not belong/);
  });

  it('refuses a missing file and garbage, naming the variable', () => {
    expect(() => loadCertificateAuthority('/nonexistent/ca.crt', ca.keyPem)).toThrow(CertificateAuthorityError);
    expect(() => loadCertificateAuthority('/nonexistent/ca.crt', ca.keyPem)).toThrow(/PROXY_MODE_CA_CERT/);
    expect(() => loadCertificateAuthority(ca.certPem, '-----BEGIN RSA PRIVATE KEY-----\nnope\n-----END RSA PRIVATE KEY-----\n')).toThrow(
      /PROXY_MODE_CA_KEY is not/,
    );
  });

  it('refuses a certificate that is not a CA', async () => {
    const leafPem = await new LeafCertificates(ca).certificatePemFor('leaf.test');
    const leafKeyOwner = createCertificateAuthority();
    expect(() => loadCertificateAuthority(leafPem, leafKeyOwner.keyPem)).toThrow(CertificateAuthorityError);
  });
});
