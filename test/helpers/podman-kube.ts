import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { podmanFlags, runCommand } from './podman.js';

/**
 * What the system tests that play examples with `podman kube play` share (test/system/compose-cluster.test.ts,
 * test/system/kubernetes-manifests.test.ts): building the images, the limits some hosts need, and the
 * rendering of Kubernetes documents into what podman plays.
 */

/**
 * Builds the Teamstage image as `image` (scripts/build-image.sh: about a minute, the Debian base kept between
 * runs) and the example PostgreSQL image (built once, then reused). TEAMSTAGE_TEST_IMAGE names an image already
 * built from this tree to use instead (a quicker local loop): the answer says whether this call built one, which
 * the caller then removes.
 */
export async function buildImages(image: string): Promise<{ image: string; built: boolean }> {
  const given = process.env.TEAMSTAGE_TEST_IMAGE;
  if (!given) await runCommand('bash', ['scripts/build-image.sh'], 900_000, { ...process.env, TEAMSTAGE_IMAGE: image });
  await runCommand('bash', ['scripts/build-postgres-image.sh'], 900_000);
  return { image: given || image, built: !given };
}

/**
 * Hosts with hybrid cgroups (runc, test/helpers/podman.ts) also refuse containers without explicit limits;
 * `kube play` has no --ulimit, so they come from a containers.conf of the test's own (what an operator there
 * sets once). The environment to run podman with.
 */
export function containersConf(dir: string): NodeJS.ProcessEnv {
  if (!podmanFlags.includes('runc')) return process.env;
  const file = path.join(dir, 'containers.conf');
  fs.writeFileSync(file, '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n');
  return { ...process.env, CONTAINERS_CONF: file };
}

/** podman with this host's flags and `env` (containersConf), killed after `timeoutMs`. */
export function podmanWith(env: NodeJS.ProcessEnv): (args: string[], timeoutMs?: number) => Promise<string> {
  return (args, timeoutMs = 120_000) => runCommand('podman', [...podmanFlags, ...args], timeoutMs, env);
}

/** Every document of a multi-document YAML file, as plain objects. */
export function yamlDocuments(file: string): any[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8')).map((doc) => doc.toJS());
}

export function yamlFile(documents: unknown[]): string {
  return documents.map((doc) => stringify(doc)).join('---\n');
}

/** What a played pod's network says of it: `field` of its infra container's network (which holds the pod's). */
async function podNetwork(podman: (args: string[]) => Promise<string>, pod: string, field: 'IPAddress' | 'Gateway'): Promise<string> {
  const infra = (await podman(['pod', 'inspect', '--format', '{{.InfraContainerID}}', pod])).trim();
  const value = (await podman(['inspect', '--format', `{{range .NetworkSettings.Networks}}{{.${field}}} {{end}}`, infra])).trim().split(/\s+/)[0];
  if (!value) throw new Error(`pod ${pod}: no ${field} on its network`);
  return value;
}

/** The IP address of a played pod, which other pods on its network reach it at. */
export function podAddress(podman: (args: string[]) => Promise<string>, pod: string): Promise<string> {
  return podNetwork(podman, pod, 'IPAddress');
}

/**
 * The address this host has on a played pod's network (its gateway): where the pod's containers reach a server
 * the test runs. `kube play` puts pods on a network of its own (podman-default-kube-network), not podman's default.
 */
export function hostAddressFor(podman: (args: string[]) => Promise<string>, pod: string): Promise<string> {
  return podNetwork(podman, pod, 'Gateway');
}
