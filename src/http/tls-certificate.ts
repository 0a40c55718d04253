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
 * Reads the certificate chain and key (PEM) and checks that they make a usable pair, so a wrong file stops
 * the start, or a reload, with its reason instead of failing every handshake later.
 */
export function readTlsPair(files: TlsFiles): TlsPair {
  const pair = { cert: fs.readFileSync(files.certFile), key: fs.readFileSync(files.keyFile) };
  tls.createSecureContext(pair); // throws on a key that does not match the certificate, or bad PEM
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
      server.setSecureContext(readTlsPair(files));
      log.info({ certFile: files.certFile }, 'TLS certificate reloaded');
    } catch (error) {
      log.error({ err: error, certFile: files.certFile }, 'TLS certificate reload failed; the current certificate stays');
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}
