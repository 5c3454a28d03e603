import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CertificateAuthority } from '../fixtures/tls-front';
import { makeTestCa } from './test-ca';

/** Where the run's CA lives, for the test processes jest starts after its global setup. */
const CA_DIR_VARIABLE = 'TRAWL_TEST_CA_DIR';

/**
 * Makes one test CA for the whole jest run and trusts it through `SSL_CERT_FILE`, in jest's main
 * process before it starts any test process: the HTTP engine's TLS client (wreq's BoringSSL) reads
 * extra roots only from that variable, and only from the real environment, which a test file cannot
 * change (jest gives each a copy). Removed when the run ends.
 */
export function trustRunCa(): void {
  const folder = mkdtempSync(join(tmpdir(), 'trawl-test-ca-'));
  const ca = makeTestCa();
  writeFileSync(join(folder, 'ca.pem'), ca.certPem);
  writeFileSync(join(folder, 'ca-key.pem'), ca.keyPem);
  process.env[CA_DIR_VARIABLE] = folder;
  process.env.SSL_CERT_FILE = join(folder, 'ca.pem');
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
}

/** The run's CA (see {@link trustRunCa}), to sign the certificates of test servers. */
export function runCa(): CertificateAuthority & { certFile: string } {
  const folder = process.env[CA_DIR_VARIABLE];
  if (!folder) throw new Error(`${CA_DIR_VARIABLE} is not set: the integration and e2e projects' global setup makes the run's CA`);
  return {
    certPem: readFileSync(join(folder, 'ca.pem'), 'utf8'),
    keyPem: readFileSync(join(folder, 'ca-key.pem'), 'utf8'),
    certFile: join(folder, 'ca.pem'),
  };
}
