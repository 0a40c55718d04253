// A health probe for `exec` probes (examples/compose/teamstage-cluster.yaml): `node /app/probe.mjs URL` exits 0
// when URL answers 2xx, 1 otherwise (refused, timed out after 5 s, any other status). Its arguments need no
// character a shell reads specially, so the command means the same run directly (Kubernetes) or joined and
// run by `sh -c` (podman 4.3 runs a probe's command so). Like Kubernetes' HTTPS probes it does not verify the
// certificate: the probe asks 127.0.0.1, which the certificate (naming the public host) does not name.
import http from 'node:http';
import https from 'node:https';

const url = new URL(process.argv[2] ?? 'http://127.0.0.1:8080/readyz');
const request = (url.protocol === 'https:' ? https : http).get(url, { rejectUnauthorized: false, timeout: 5000 }, (response) => {
  response.resume();
  process.exit(response.statusCode >= 200 && response.statusCode < 300 ? 0 : 1);
});
request.on('timeout', () => request.destroy());
request.on('error', () => process.exit(1));
