/**
 * Issue 40: the Kubernetes manifests (examples/kubernetes/) play and serve a gated run. What an operator applies
 * is rendered for `podman kube play` and played: cluster-postgres.yaml as two nodes over one PostgreSQL (a pod
 * of the example PostgreSQL image stands in for yours), single-node-sqlite.yaml as one node on its volume. Each
 * node is waited for through the probes its manifest declares (their paths and ports, asked from the host), then
 * a run gated by a mandatory run task is made: the delivery reaches a mock run task service on this host, its
 * callback lands, the stage passes (read through every node). No answer may be a 5xx.
 * Rendering changes only what an operator fills in or a cluster provides; the manifests themselves stay plain
 * Kubernetes (test/unit/example-deployments.test.ts checks their shape). Bounded: every wait has its limit, and
 * `after` removes the pods, the secrets and the volumes. Skipped only where podman or mmdebstrap is not installed
 * (CI installs both: .ci/run). TEAMSTAGE_TEST_IMAGE: use an image already built from this tree (no build).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { GatedRuns, passAndCallBack, GATED_HMAC_KEY } from '../helpers/gated-runs.js';
import { HttpClient } from '../helpers/http-client.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import { freePort } from '../helpers/postgres-server.js';
import { installed } from '../helpers/podman.js';
import { buildImages, containersConf, hostAddressFor, podAddress, podmanWith, yamlDocuments, yamlFile } from '../helpers/podman-kube.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const canRun = installed('podman') && installed('mmdebstrap');

/**
 * Kinds podman plays: Secret, PersistentVolumeClaim (a named volume) and Deployment (a pod per replica). Left out,
 * as a cluster provides what they describe and podman has no such thing: a Service (a cluster's virtual address and
 * proxy; here each node is reached on its own host port) and a PodDisruptionBudget (a rule for a cluster's eviction
 * API; podman never drains a node).
 */
const PLAYABLE = new Set(['Secret', 'PersistentVolumeClaim', 'Deployment']);
const LEFT_OUT = new Set(['Service', 'PodDisruptionBudget']);

interface Node {
  name: string;
  port: number;
  client: HttpClient;
}

/**
 * What `kubectl apply` would get after an operator filled the manifest in, made playable: names carry the test's
 * suffix (several runs on one host never meet), the Secret holds real values, the image is the one built here.
 * A Deployment of N replicas is played by podman as N pods that would all publish the container port on the same
 * host port, so each node is its own one-replica copy with a host port of its own and its own public address.
 */
function render(file: string, suffix: string, image: string, secretValues: Record<string, string>, nodes: Array<{ name: string; port: number }>, secretsUndecoded: boolean): string {
  const documents = yamlDocuments(path.join(root, file));
  const kinds = documents.map((doc) => doc.kind as string);
  assert.deepEqual(kinds.filter((kind) => !PLAYABLE.has(kind) && !LEFT_OUT.has(kind)), [], `${file}: a kind this test does not know`);
  const named = (name: string) => `${name}-${suffix}`;
  const played: unknown[] = [];
  for (const doc of documents.filter((each) => PLAYABLE.has(each.kind))) {
    if (doc.kind === 'Secret') {
      assert.deepEqual(Object.keys(doc.stringData).sort(), Object.keys(secretValues).sort(), `${file}: the Secret's keys`);
      for (const value of Object.values<string>(doc.stringData)) assert.match(value, /CHANGE-ME/, `${file}: a Secret value is a placeholder`);
      // Kubernetes merges stringData into data (base64) and the kubelet writes the decoded values into the files.
      // podman 4.3 (Debian 12's, CI's) ignores stringData, and writes into each file its data value re-encoded in
      // base64 (a database URL cannot come out right): for it the same values become a ConfigMap, whose volume it
      // fills with the values as they are, at the same path. A later podman gets the Secret as Kubernetes stores it.
      const name = named(doc.metadata.name);
      if (secretsUndecoded) played.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: secretValues });
      else played.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: doc.type, data: Object.fromEntries(Object.entries(secretValues).map(([key, value]) => [key, Buffer.from(value).toString('base64')])) });
    } else if (doc.kind === 'PersistentVolumeClaim') {
      played.push({ ...doc, metadata: { ...doc.metadata, name: named(doc.metadata.name) } });
    } else {
      for (const node of nodes) {
        const copy = structuredClone(doc);
        copy.metadata.name = named(`${doc.metadata.name}-${node.name}`);
        copy.spec.replicas = 1;
        const spec = copy.spec.template.spec;
        for (const volume of spec.volumes) {
          if (volume.secret) volume.secret.secretName = named(volume.secret.secretName);
          if (volume.secret && secretsUndecoded) {
            volume.configMap = { name: volume.secret.secretName, optional: false };
            delete volume.secret;
          }
          if (volume.persistentVolumeClaim) volume.persistentVolumeClaim.claimName = named(volume.persistentVolumeClaim.claimName);
          // An emptyDir becomes a podman volume by the volume's name: named per pod, so pods never share one.
          if (volume.emptyDir) {
            for (const container of spec.containers) for (const mount of container.volumeMounts ?? []) if (mount.name === volume.name) mount.name = named(`${volume.name}-${node.name}`);
            volume.name = named(`${volume.name}-${node.name}`);
          }
        }
        const [container] = spec.containers;
        container.image = image;
        container.ports[0].hostPort = node.port;
        const baseUrl = container.env.find((entry: { name: string }) => entry.name === 'TEAMSTAGE_BASE_URL');
        baseUrl.value = `http://127.0.0.1:${node.port}`;
        container.env.push({ name: 'TEAMSTAGE_NODE_NAME', value: node.name });
        played.push(copy);
      }
    }
  }
  return yamlFile(played);
}

/**
 * Waits (bounded) until every httpGet probe the manifest's container declares answers 200 on each node: the
 * startup and liveness probes (/healthz), then the readiness probe (/readyz: the database takes writes).
 */
async function readyThroughProbes(file: string, nodes: Node[], podLogs: () => Promise<string>, timeoutMs: number): Promise<string[]> {
  const deployment = yamlDocuments(path.join(root, file)).find((doc) => doc.kind === 'Deployment');
  const [container] = deployment.spec.template.spec.containers;
  const probes = ['startupProbe', 'livenessProbe', 'readinessProbe'].map((kind) => ({ kind, get: container[kind]?.httpGet }));
  for (const probe of probes) {
    assert.ok(probe.get, `${file}: ${probe.kind} is an httpGet`);
    const port = container.ports.find((each: { name?: string; containerPort: number }) => each.name === probe.get.port || each.containerPort === probe.get.port);
    assert.ok(port, `${file}: ${probe.kind} names a port the container declares`);
  }
  const deadline = Date.now() + timeoutMs;
  for (const node of nodes) {
    for (const probe of probes) {
      for (;;) {
        const status = await fetch(`http://127.0.0.1:${node.port}${probe.get.path}`, { signal: AbortSignal.timeout(5000) }).then((response) => response.status, () => 0);
        if (status === 200) break;
        if (Date.now() > deadline) throw new Error(`${node.name}: ${probe.kind} ${probe.get.path} answered ${status} after ${timeoutMs} ms\n${await podLogs()}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
  return probes.map((probe) => `${probe.kind} ${probe.get.path}`);
}

/** A run gated by a mandatory post-plan task, made through the first node; its stage passes, read through each. */
async function gatedRunPasses(nodes: Node[], siteToken: string, service: MockTaskService, taskUrl: string): Promise<void> {
  const [first] = nodes;
  const runs = await GatedRuns.setUp(first!.client, siteToken, taskUrl);
  const runId = await runs.createRun(first!.client, 'gated-on-kubernetes');
  for (const node of nodes) await runs.waitForStage(node.client, runId, 'passed', 120_000);
  assert.deepEqual(runs.serverErrors(), [], 'no request answered 5xx');
  const deliveries = service.requests.filter((request) => request.json?.stage === 'post_plan' && request.json?.run_id === runId);
  assert.equal(deliveries.length, 1, 'one delivery of the run');
  assert.ok(deliveries[0]!.signatureValid, 'signed with the task\'s HMAC key');
}

describe('the Kubernetes manifests, played with podman kube play', { timeout: 1_500_000, skip: canRun ? false : 'needs podman and mmdebstrap (CI installs them: .ci/run)' }, () => {
  const suffix = randomBytes(4).toString('hex');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-kube-'));
  const podman = podmanWith(containersConf(work));
  const cleanups: Array<() => Promise<unknown>> = [];
  const siteToken = randomBytes(32).toString('hex');
  let image = '';
  let secretsUndecoded = false;
  let service: MockTaskService;
  let taskUrl = '';

  /**
   * Plays `yaml` (kept in the work folder) and registers its removal: pods, then the secrets and volumes it made
   * (podman keeps a played Secret as a podman secret and a volume of the same name; `kube down` leaves both).
   */
  const play = async (name: string, yaml: string, made: { secrets?: string[]; volumes?: string[] } = {}) => {
    const file = path.join(work, `${name}.yaml`);
    fs.writeFileSync(file, yaml);
    cleanups.push(async () => {
      await podman(['kube', 'down', file]).catch(() => {});
      for (const secret of made.secrets ?? []) await podman(['secret', 'rm', secret]).catch(() => {});
      for (const volume of made.volumes ?? []) await podman(['volume', 'rm', '--force', volume]).catch(() => {});
    });
    await podman(['kube', 'play', file], 300_000);
  };
  const logsOf = (pods: string[]) => async () => {
    const logs = await Promise.all(pods.map((pod) => podman(['pod', 'logs', '--tail', '40', pod]).catch((error) => String(error))));
    return logs.join('\n').slice(-6000);
  };

  before(async () => {
    const built = await buildImages(`localhost/teamstage:kube-${suffix}`);
    image = built.image;
    secretsUndecoded = /^4\.3\./.test((await podman(['version', '--format', '{{.Client.Version}}'])).trim());
    if (built.built) cleanups.push(() => podman(['rmi', '--force', image]));
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await service?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('cluster-postgres.yaml: two nodes over one PostgreSQL get ready through their probes and serve a gated run', async () => {
    // The database the manifest expects you to bring: the example PostgreSQL image (scripts/build-postgres-image.sh), in a pod of its own.
    const password = randomBytes(16).toString('hex');
    const database = `teamstage-kube-db-${suffix}`;
    await play('database', yamlFile([{
      apiVersion: 'v1', kind: 'Pod', metadata: { name: database },
      spec: { containers: [{ name: 'postgres', image: 'localhost/teamstage-postgres:trixie', env: [{ name: 'POSTGRES_PASSWORD', value: password }] }] },
    }]));
    const databaseAddress = await podAddress(podman, database);
    // The run task service runs here; pods reach this host on podman's network.
    const hostAddress = await hostAddressFor(podman, database);
    service = await MockTaskService.start({ hmacKey: GATED_HMAC_KEY, respond: passAndCallBack, host: hostAddress });
    taskUrl = `http://${hostAddress}:${service.port}/run-task`;

    const nodes = await Promise.all(['node-a', 'node-b'].map(async (name) => ({ name, port: await freePort() })));
    const file = 'examples/kubernetes/cluster-postgres.yaml';
    await play('cluster', render(file, suffix, image, {
      'database-url': `postgres://teamstage:${password}@${databaseAddress}:5432/postgres`,
      'site-token': siteToken,
    }, nodes, secretsUndecoded), { secrets: [`teamstage-cluster-${suffix}`], volumes: [`teamstage-cluster-${suffix}`, ...nodes.map((node) => `tmp-${node.name}-${suffix}`)] });
    const serving = nodes.map((node) => ({ ...node, client: new HttpClient(`http://127.0.0.1:${node.port}`, 2) }));
    cleanups.push(async () => Promise.all(serving.map((node) => node.client.close())));
    const probed = await readyThroughProbes(file, serving, logsOf([database, ...nodes.map((node) => `teamstage-${node.name}-${suffix}-pod-0`)]), 240_000);
    assert.deepEqual(probed, ['startupProbe /healthz', 'livenessProbe /healthz', 'readinessProbe /readyz']);
    await gatedRunPasses(serving, siteToken, service, taskUrl);
  });

  it('single-node-sqlite.yaml: one node on its volume gets ready through its probes and serves a gated run', async () => {
    assert.ok(service, 'the run task service of the first test');
    const nodes = [{ name: 'single', port: await freePort() }];
    const file = 'examples/kubernetes/single-node-sqlite.yaml';
    await play('single', render(file, suffix, image, { 'site-token': siteToken }, nodes, secretsUndecoded), {
      secrets: [`teamstage-single-${suffix}`],
      volumes: [`teamstage-single-${suffix}`, `teamstage-data-${suffix}`, `tmp-single-${suffix}`],
    });
    const serving = nodes.map((node) => ({ ...node, client: new HttpClient(`http://127.0.0.1:${node.port}`, 2) }));
    cleanups.push(async () => Promise.all(serving.map((node) => node.client.close())));
    await readyThroughProbes(file, serving, logsOf([`teamstage-single-${suffix}-pod-0`]), 240_000);
    await gatedRunPasses(serving, siteToken, service, taskUrl);
  });
});
