/**
 * Issue 40: the Kubernetes manifests (examples/kubernetes/) and the Docker Compose file
 * (examples/compose/docker-compose.yml) parse and keep what operating Teamstage needs: probes on /healthz and
 * /readyz, secrets as files (no credential in a container's environment), a stop timeout above the node's
 * own stop bound (TEAMSTAGE_STOP_GRACE + 5 s, when main.ts gives up), a PodDisruptionBudget for several
 * nodes, one replica with Recreate on SQLite, and distinct hostnames for the compose nodes.
 * The podman pod (examples/compose/teamstage-cluster.yaml) has the same probes and no credential in it. What these
 * files do when played: test/system/kubernetes-manifests.test.ts and compose-cluster.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const documents = (file: string) => parseAllDocuments(fs.readFileSync(path.join(root, file), 'utf8')).map((doc) => doc.toJS());
const SECRET_NAMES = /^(DATABASE_URL|TEAMSTAGE_SITE_TOKEN|POSTGRES_PASSWORD)$/;

/** The node's own stop bound with the grace the file sets: main.ts exits 1 at grace + 5 s. */
function stopBound(env: Record<string, string>): number {
  return loadConfig({ TEAMSTAGE_STOP_GRACE: env.TEAMSTAGE_STOP_GRACE }).jobs.stopGraceSeconds + 5;
}

describe('Kubernetes manifests', () => {
  for (const [file, several] of [['examples/kubernetes/single-node-sqlite.yaml', false], ['examples/kubernetes/cluster-postgres.yaml', true]] as const) {
    it(`${file}: probes, secrets as files, a stop timeout that fits${several ? ', a PodDisruptionBudget' : ', one replica replaced with Recreate'}`, () => {
      const docs = documents(file);
      const deployment = docs.find((doc) => doc.kind === 'Deployment');
      assert.ok(deployment);
      const pod = deployment.spec.template.spec;
      const [container] = pod.containers;
      assert.equal(container.livenessProbe.httpGet.path, '/healthz');
      assert.equal(container.readinessProbe.httpGet.path, '/readyz');
      const env = Object.fromEntries(container.env.map((entry: { name: string; value: string }) => [entry.name, entry.value]));
      for (const name of Object.keys(env)) assert.doesNotMatch(name, SECRET_NAMES, `${name} as a plain variable: use its _FILE form`);
      assert.ok(env.TEAMSTAGE_SITE_TOKEN_FILE?.startsWith('/run/secrets/'));
      const secretVolume = pod.volumes.find((volume: any) => volume.secret);
      assert.ok(docs.some((doc) => doc.kind === 'Secret' && doc.metadata.name === secretVolume.secret.secretName));
      assert.ok(pod.terminationGracePeriodSeconds > stopBound(env), `terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} must exceed ${stopBound(env)} s`);
      if (several) {
        assert.ok(deployment.spec.replicas > 1);
        assert.ok(env.DATABASE_URL_FILE?.startsWith('/run/secrets/'));
        const budget = docs.find((doc) => doc.kind === 'PodDisruptionBudget');
        assert.deepEqual(budget?.spec.selector.matchLabels, deployment.spec.selector.matchLabels);
        assert.ok(budget.spec.minAvailable >= 1 && budget.spec.minAvailable < deployment.spec.replicas);
      } else {
        assert.equal(deployment.spec.replicas, 1);
        assert.equal(deployment.spec.strategy.type, 'Recreate');
        assert.ok(docs.some((doc) => doc.kind === 'PersistentVolumeClaim'));
        assert.ok(container.volumeMounts.some((mount: any) => mount.mountPath === '/data'));
      }
    });
  }
});

describe('Docker Compose file', () => {
  it('parses; nodes have health checks on /readyz, secrets as files, distinct hostnames and a stop timeout that fits', () => {
    const compose = parse(fs.readFileSync(path.join(root, 'examples/compose/docker-compose.yml'), 'utf8'), { merge: true });
    const nodes = Object.entries<any>(compose.services).filter(([, service]) => String(service.image).includes('teamstage'));
    assert.ok(nodes.length >= 2);
    assert.equal(new Set(nodes.map(([, service]) => service.hostname)).size, nodes.length, 'distinct hostnames');
    for (const [name, service] of [...nodes, ['postgres', compose.services.postgres]] as Array<[string, any]>) {
      assert.ok(service.healthcheck?.test, `${name}: a health check`);
      for (const variable of Object.keys(service.environment ?? {})) assert.doesNotMatch(variable, SECRET_NAMES, `${name}: ${variable} as a plain variable`);
      for (const secret of service.secrets ?? []) assert.ok(compose.secrets[secret]?.file, `${name}: secret ${secret} from a file`);
    }
    for (const [name, service] of nodes) {
      assert.match(service.healthcheck.test.join(' '), /\/readyz/, name);
      assert.ok(service.environment.DATABASE_URL_FILE && service.environment.TEAMSTAGE_SITE_TOKEN_FILE, name);
      assert.ok(parseInt(service.stop_grace_period, 10) > stopBound(service.environment), `${name}: stop_grace_period`);
      assert.equal(service.depends_on.postgres.condition, 'service_healthy');
    }
  });
});

describe('podman pod example', () => {
  it('probes every container; liveness on /healthz and readiness on /readyz; no credential in the file or the environment', () => {
    const text = fs.readFileSync(path.join(root, 'examples/compose/teamstage-cluster.yaml'), 'utf8');
    const [pod] = documents('examples/compose/teamstage-cluster.yaml').filter((doc) => doc.kind === 'Pod');
    assert.ok(pod);
    for (const container of pod.spec.containers) {
      assert.ok(container.livenessProbe?.exec?.command, `${container.name}: a liveness probe`);
      for (const name of (container.env ?? []).map((entry: { name: string }) => entry.name)) assert.doesNotMatch(name, SECRET_NAMES, `${container.name}: ${name} as a plain variable`);
      // podman 4.3 joins an exec probe's command and runs it with sh -c: nothing a shell would read differently.
      for (const probe of [container.livenessProbe, container.readinessProbe].filter(Boolean)) for (const arg of probe.exec.command) assert.match(arg, /^[\w./:-]+$/, `${container.name}: ${arg}`);
    }
    const nodes = pod.spec.containers.filter((container: any) => String(container.image).includes('teamstage:'));
    assert.equal(nodes.length, 2);
    for (const node of nodes) {
      assert.match(node.livenessProbe.exec.command.join(' '), /\/healthz$/, node.name);
      assert.match(node.readinessProbe.exec.command.join(' '), /\/readyz$/, node.name);
    }
    assert.doesNotMatch(text, /^[^#\n]*(CHANGE-ME|:\/\/[^/\s]*:[^/\s]*@)/m, 'no password (nor a placeholder for one) outside comments');
    assert.doesNotMatch(text, /^\s*- name: (POSTGRES_PASSWORD|DATABASE_URL|TEAMSTAGE_SITE_TOKEN)$/m, 'no credential as a variable');
    assert.ok(pod.spec.volumes.some((volume: any) => volume.name === 'secrets' && volume.hostPath?.path), 'the secrets folder');
  });
});
