import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestCertificates {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  ca: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * A throwaway CA and a server certificate it signed for 127.0.0.1 and localhost, made with openssl in
 * `dir` (tests point Go clients at the CA with SSL_CERT_FILE and Node clients with `ca`). `name` sets the
 * server certificate's common name, so a test can tell two certificates apart.
 */
export function makeTestCertificates(dir: string, name = 'teamstage-test'): TestCertificates {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!fs.existsSync(path.join(dir, 'ca.pem'))) {
    openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Teamstage test CA']);
  }
  fs.writeFileSync(path.join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  openssl(dir, [
    'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial',
    '-out', `${name}.pem`, '-days', '2', '-extfile', 'san.cnf',
  ]);
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    certFile: path.join(dir, `${name}.pem`),
    keyFile: path.join(dir, `${name}-key.pem`),
    ca: fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8'),
  };
}
