import type { CustomEmulationOptions } from 'wreq-js';

/**
 * Chrome's TLS ClientHello and HTTP/2 connection preface, as wreq's BoringSSL can send them: the
 * cipher and signature lists in Chrome's order, X25519MLKEM768 first, GREASE, ALPS (new codepoint),
 * ECH GREASE, brotli certificate compression, extensions permuted per connection as Chrome does;
 * SETTINGS `1:65536;2:0;4:6291456;6:262144`, a 15663105 connection window and `m,a,s,p`
 * pseudo-headers. Two things of Chrome 156 are beyond this BoringSSL: the trust-anchor-IDs
 * extension (0xca34) and the ML-DSA signature algorithms (0x0904–0x0906), so the JA4 is the one
 * Chrome sent until it added them (`t13d1516h2_8daaf6152771_d8a2da3f94cd`); see
 * docs/decisions/stealth.md. Passing these options replaces wreq's preset whole, so all are given.
 */
export const CHROME_TLS: CustomEmulationOptions = {
  tlsOptions: {
    cipherList: [
      'TLS_AES_128_GCM_SHA256',
      'TLS_AES_256_GCM_SHA384',
      'TLS_CHACHA20_POLY1305_SHA256',
      'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
      'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
      'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
      'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
      'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
      'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
      'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
      'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
      'TLS_RSA_WITH_AES_128_GCM_SHA256',
      'TLS_RSA_WITH_AES_256_GCM_SHA384',
      'TLS_RSA_WITH_AES_128_CBC_SHA',
      'TLS_RSA_WITH_AES_256_CBC_SHA',
    ].join(':'),
    curvesList: 'X25519MLKEM768:X25519:P-256:P-384',
    sigalgsList: [
      'ecdsa_secp256r1_sha256',
      'rsa_pss_rsae_sha256',
      'rsa_pkcs1_sha256',
      'ecdsa_secp384r1_sha384',
      'rsa_pss_rsae_sha384',
      'rsa_pkcs1_sha384',
      'rsa_pss_rsae_sha512',
      'rsa_pkcs1_sha512',
    ].join(':'),
    alpnProtocols: ['HTTP2', 'HTTP1'],
    alpsProtocols: ['HTTP2'],
    alpsUseNewCodepoint: true,
    greaseEnabled: true,
    enableEchGrease: true,
    permuteExtensions: true,
    enableOcspStapling: true,
    enableSignedCertTimestamps: true,
    sessionTicket: true,
    preSharedKey: true,
    certificateCompressionAlgorithms: ['brotli'],
    minTlsVersion: '1.2',
    maxTlsVersion: '1.3',
  },
  http2Options: {
    headerTableSize: 65_536,
    enablePush: false,
    initialWindowSize: 6_291_456,
    maxHeaderListSize: 262_144,
    initialConnectionWindowSize: 15_728_640,
    settingsOrder: [
      'HeaderTableSize',
      'EnablePush',
      'MaxConcurrentStreams',
      'InitialWindowSize',
      'MaxFrameSize',
      'MaxHeaderListSize',
      'EnableConnectProtocol',
      'NoRfc7540Priorities',
    ],
    headersPseudoOrder: ['Method', 'Authority', 'Scheme', 'Path'],
    headersStreamDependency: { dependencyId: 0, weight: 255, exclusive: true },
  },
};
