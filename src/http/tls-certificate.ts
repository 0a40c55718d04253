import fs from 'node:fs';
import tls from 'node:tls';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

/**
 * Only ciphers with forward secrecy and authenticated encryption: TLS 1.3's suites as they are, and on TLS 1.2
 * ECDHE key exchange with AES-GCM or ChaCha20-Poly1305 (Mozilla's "intermediate" list without its DHE
 * suites). Node's default list also takes static-RSA and CBC suites (`AES128-SHA`), whose recorded traffic a
 * key stolen later decrypts. Every client Teamstage serves (terraform, go-tfe, browsers, curl) speaks these.
 */
export const TLS_HARDENING = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  honorCipherOrder: true,
} as const satisfies tls.SecureContextOptions & { honorCipherOrder: boolean };

/**
 * Reads the certificate chain and key (PEM) and checks that they make a usable pair, so a wrong file stops
 * the start, or a reload, with its reason instead of failing every handshake later.
 */
export function readTlsPair(files: TlsFiles): TlsPair {
  const pair = { cert: fs.readFileSync(files.certFile), key: fs.readFileSync(files.keyFile) };
  tls.createSecureContext({ ...pair, ...TLS_HARDENING }); // throws on a key that does not match the certificate, or bad PEM
  return pair;
}

/**
 * SIGHUP: certificates are renewed in place (certbot, cert-manager), so the server re-reads both files and
 * new connections get the new pair; open connections keep theirs. A pair that cannot be read or does not
 * match is logged and the current one stays.
 */
export function reloadTlsOnHangup(server: tls.Server, files: TlsFiles, log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void }): () => void {
  const reload = () => {
    try {
      server.setSecureContext({ ...readTlsPair(files), ...TLS_HARDENING });
      log.info({ certFile: files.certFile }, 'TLS certificate reloaded');
    } catch (error) {
      log.error({ err: error, certFile: files.certFile }, 'TLS certificate reload failed; the current certificate stays');
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}
