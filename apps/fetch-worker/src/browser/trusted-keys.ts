import { createHash, X509Certificate } from 'node:crypto';

/**
 * The base64 SHA-256 of each certificate's public key (SPKI) in a PEM bundle: what Chromium's
 * `--ignore-certificate-errors-spki-list` takes. Chromium has no option to add a root; that flag
 * accepts a chain holding one of these keys, which is how the worker trusts `TLS_EXTRA_CA_FILE`.
 */
export function spkiHashes(pem: string): string[] {
  const certificates = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return certificates.map((text) => {
    const spki = new X509Certificate(text).publicKey.export({ type: 'spki', format: 'der' });
    return createHash('sha256').update(spki).digest('base64');
  });
}

/** Chromium's flag for a PEM bundle of extra authorities (none when the bundle holds no certificate). */
export function trustedKeysFlags(pem: string): string[] {
  const hashes = spkiHashes(pem);
  return hashes.length === 0 ? [] : [`--ignore-certificate-errors-spki-list=${hashes.join(',')}`];
}
