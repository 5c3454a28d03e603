import { isIP } from 'node:net';
import { createSecureContext, SecureContext } from 'node:tls';
import forge from 'node-forge';
import { TtlLruCache } from '../auth/ttl-lru-cache';
import { CertificateAuthority, RsaKeyPair, rsaKeyPairAsync, serialNumber } from './certificate-authority';

export interface LeafCertificatesOptions {
  /** Hosts whose certificate is kept ready (least recently used go first). Default 1,000. */
  maxEntries?: number;
  /** Validity of an issued certificate, in days. Default 30 (well under browsers' 398-day cap). */
  validityDays?: number;
  /** Called after each certificate signed (a cache miss), e.g. for a metric. */
  onIssued?: () => void;
  now?: () => number;
}

/** The CA and the one key pair of every leaf. */
interface Signing {
  ca: CertificateAuthority;
  leafKey: RsaKeyPair;
}

/**
 * Per-host server certificates for TLS terminated in proxy mode, signed by the operator's CA on the
 * first CONNECT to a host and kept in an LRU. All leaves share one key pair: signing takes
 * milliseconds where a fresh RSA key per host would cost far more, and the key never leaves the
 * process (mitmproxy does the same). A cached certificate is replaced a day into its life, long
 * before it expires.
 *
 * The leaf key (and a CA made for this process, when none is configured) is made on the first TLS
 * CONNECT, off the event loop: an RSA-2048 key is ~0.1–0.3 s of CPU that every gateway start paid
 * although most gateways never see a CONNECT, and that made synchronously on a serving gateway
 * would stall every request it holds.
 */
export class LeafCertificates {
  private signing?: Promise<Signing>;
  private readonly contexts: TtlLruCache<string, { context: SecureContext; certPem: string }>;
  private readonly validityDays: number;
  private readonly now: () => number;
  private issuedCount = 0;

  /** @param ca The CA, or what makes it when first needed (a CA made for this process when none is configured). */
  constructor(
    private readonly ca: CertificateAuthority | (() => Promise<CertificateAuthority>),
    private readonly options: LeafCertificatesOptions = {},
  ) {
    this.validityDays = options.validityDays ?? 30;
    this.now = options.now ?? Date.now;
    this.contexts = new TtlLruCache({ ttlMs: 86_400_000, maxEntries: options.maxEntries ?? 1_000, now: this.now });
  }

  /** How many certificates were signed so far (cache misses). */
  get issued(): number {
    return this.issuedCount;
  }

  /** The TLS server context for `host` (a DNS name or an IP literal, IPv6 without brackets). */
  async secureContextFor(host: string): Promise<SecureContext> {
    return (await this.entryFor(host)).context;
  }

  /** The PEM certificate served for `host`. */
  async certificatePemFor(host: string): Promise<string> {
    return (await this.entryFor(host)).certPem;
  }

  private async entryFor(host: string): Promise<{ context: SecureContext; certPem: string }> {
    const name = host.toLowerCase();
    const cached = this.contexts.get(name);
    if (cached) return cached;
    const signing = await this.signingKeys();
    // Another CONNECT to the same host may have issued it while the keys were being made.
    const issuedMeanwhile = this.contexts.get(name);
    if (issuedMeanwhile) return issuedMeanwhile;
    const certPem = this.issue(name, signing);
    const entry = {
      certPem,
      // The chain includes the CA so clients that trust it only as an intermediate still verify.
      context: createSecureContext({ cert: `${certPem}${signing.ca.certPem}`, key: signing.leafKey.keyPem }),
    };
    this.contexts.set(name, entry);
    return entry;
  }

  /** Made once; a failure is not kept, so the next CONNECT tries again. */
  private signingKeys(): Promise<Signing> {
    this.signing ??= (async () => {
      const [ca, leafKey] = await Promise.all([typeof this.ca === 'function' ? this.ca() : this.ca, rsaKeyPairAsync()]);
      return { ca, leafKey };
    })().catch((error: unknown) => {
      this.signing = undefined;
      throw error;
    });
    return this.signing;
  }

  private issue(host: string, { ca, leafKey }: Signing): string {
    const cert = forge.pki.createCertificate();
    const now = this.now();
    cert.publicKey = leafKey.publicKey;
    cert.serialNumber = serialNumber();
    // An hour back for clients whose clock is a little behind ours.
    cert.validity.notBefore = new Date(now - 3_600_000);
    const notAfter = Math.min(now + this.validityDays * 86_400_000, ca.cert.validity.notAfter.getTime());
    cert.validity.notAfter = new Date(notAfter);
    // CN is at most 64 characters (RFC 5280 upper bound); clients match on subjectAltName anyway.
    cert.setSubject(host.length <= 64 ? [{ name: 'commonName', value: host }] : []);
    cert.setIssuer(ca.cert.subject.attributes);
    const altName = isIP(host) !== 0 ? { type: 7, ip: host } : { type: 2, value: host };
    cert.setExtensions([
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [altName] },
      { name: 'subjectKeyIdentifier' },
      { name: 'authorityKeyIdentifier', keyIdentifier: caKeyIdentifier(ca) },
    ]);
    cert.sign(ca.key, forge.md.sha256.create());
    this.issuedCount++;
    this.options.onIssued?.();
    return forge.pki.certificateToPem(cert);
  }
}

function caKeyIdentifier(ca: CertificateAuthority): string {
  const ski = ca.cert.getExtension('subjectKeyIdentifier') as { subjectKeyIdentifier?: string } | null;
  if (ski?.subjectKeyIdentifier) return forge.util.hexToBytes(ski.subjectKeyIdentifier);
  return ca.cert.generateSubjectKeyIdentifier().getBytes();
}
