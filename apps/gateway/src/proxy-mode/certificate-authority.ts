import { generateKeyPair, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import forge from 'node-forge';

/** The operator's CA that signs proxy mode's per-host certificates. */
export interface CertificateAuthority {
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
  /** The CA certificate, PEM: what clients add to their trust store. */
  certPem: string;
}

/** Thrown at boot when the configured CA cannot be used; names the variable. */
export class CertificateAuthorityError extends Error {}

/**
 * Loads the CA from `PROXY_MODE_CA_CERT` / `PROXY_MODE_CA_KEY`, each either PEM text (starting
 * `-----BEGIN`) or the path of a PEM file (a Kubernetes Secret mounted as files). The key must be
 * RSA, unencrypted, and belong to the certificate, which must be a CA.
 *
 * @throws CertificateAuthorityError naming the variable at fault.
 */
export function loadCertificateAuthority(certSource: string, keySource: string): CertificateAuthority {
  const certPem = pemOf(certSource, 'PROXY_MODE_CA_CERT');
  const keyPem = pemOf(keySource, 'PROXY_MODE_CA_KEY');
  let cert: forge.pki.Certificate;
  let key: forge.pki.rsa.PrivateKey;
  try {
    cert = forge.pki.certificateFromPem(certPem);
  } catch (error) {
    throw new CertificateAuthorityError(`PROXY_MODE_CA_CERT is not a PEM certificate (RSA): ${(error as Error).message}`);
  }
  try {
    key = forge.pki.privateKeyFromPem(keyPem);
  } catch {
    // The message could quote key material: say only what is wrong.
    throw new CertificateAuthorityError('PROXY_MODE_CA_KEY is not an unencrypted PEM RSA private key.');
  }
  const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
  if (!publicKey.n || publicKey.n.compareTo(key.n) !== 0) {
    throw new CertificateAuthorityError('PROXY_MODE_CA_KEY does not belong to PROXY_MODE_CA_CERT.');
  }
  const constraints = cert.getExtension('basicConstraints') as { cA?: boolean } | null;
  if (!constraints?.cA) throw new CertificateAuthorityError('PROXY_MODE_CA_CERT is not a CA certificate (basicConstraints cA).');
  return { cert, key, certPem: forge.pki.certificateToPem(cert) };
}

/**
 * A fresh self-signed CA, for when the operator configures none (development) and for tests:
 * clients that skip certificate checks work; others need the operator's CA.
 */
export function createCertificateAuthority(options: AuthorityOptions = {}): CertificateAuthority & { keyPem: string } {
  return authorityOf(rsaKeyPair(), options);
}

/** {@link createCertificateAuthority} with its key made off the event loop (a running gateway's). */
export async function createCertificateAuthorityAsync(options: AuthorityOptions = {}): Promise<CertificateAuthority & { keyPem: string }> {
  return authorityOf(await rsaKeyPairAsync(), options);
}

interface AuthorityOptions {
  /** Subject CN. Default `Trawl proxy mode CA`. */
  commonName?: string;
  /** Default 3,650. */
  validityDays?: number;
}

function authorityOf(
  { key, publicKey, keyPem }: RsaKeyPair,
  { commonName = 'Trawl proxy mode CA', validityDays = 3_650 }: AuthorityOptions,
): CertificateAuthority & { keyPem: string } {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + validityDays * 86_400_000);
  const name = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Trawl' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { cert, key, certPem: forge.pki.certificateToPem(cert), keyPem };
}

export interface RsaKeyPair {
  key: forge.pki.rsa.PrivateKey;
  publicKey: forge.pki.rsa.PublicKey;
  keyPem: string;
}

const RSA_2048 = {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
} as const;

/**
 * An RSA 2048 key pair. Node generates it natively (forge's JavaScript takes seconds); forge only
 * reads it back to build certificates.
 */
export function rsaKeyPair(): RsaKeyPair {
  return keyPairOf(generateKeyPairSync('rsa', RSA_2048).privateKey);
}

/** {@link rsaKeyPair} made on libuv's thread pool: ~0.1–0.3 s of CPU that must not stall a serving event loop. */
export function rsaKeyPairAsync(): Promise<RsaKeyPair> {
  return new Promise((resolve, reject) =>
    generateKeyPair('rsa', RSA_2048, (error, _publicKey, privateKey) => (error ? reject(error) : resolve(keyPairOf(privateKey)))),
  );
}

function keyPairOf(privateKeyPem: string): RsaKeyPair {
  const key = forge.pki.privateKeyFromPem(privateKeyPem);
  return { key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e), keyPem: privateKeyPem };
}

/** A random positive serial of 16 bytes (RFC 5280 §4.1.2.2: positive, at most 20 octets), hex. */
export function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  bytes[0] |= 0x01;
  return bytes.toString('hex');
}

function pemOf(source: string, variable: string): string {
  if (source.trimStart().startsWith('-----BEGIN')) return source;
  try {
    return readFileSync(source, 'utf8');
  } catch (error) {
    throw new CertificateAuthorityError(
      `${variable} is neither PEM text nor a readable file: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
}
