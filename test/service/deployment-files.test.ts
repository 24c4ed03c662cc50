import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import { SETTINGS } from '@aos/config';

// The deployment files are documentation that runs: every variable they set must be one
// the service reads, every `npm run` they name must exist, and the Kubernetes example must
// probe readiness and scale writers as docs/operations.md says.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const ACCEPTED = new Set(Object.values(SETTINGS).flatMap((group) => Object.keys(group)));
/** Read by npm and Node.js (devDependencies left out of the image), not by the service. */
const RUNTIME_ONLY = new Set(['NODE_ENV']);
const SCRIPTS = new Set(Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts));
const K8S_DIR = 'deploy/kubernetes';
const k8sFiles = readdirSync(path.join(ROOT, K8S_DIR)).filter((f) => f.endsWith('.yaml'));

interface K8sObject {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: Record<string, unknown>;
  resources?: string[];
}
interface Container {
  name: string;
  command?: string[];
  env?: { name: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: { httpGet?: { path: string } };
}
const k8sObjects = k8sFiles.filter((f) => f !== 'kustomization.yaml').flatMap((f) => parseAllDocuments(read(`${K8S_DIR}/${f}`)).map((d) => d.toJS() as K8sObject)).filter((o) => o !== null);
const deployments = k8sObjects.filter((o) => o.kind === 'Deployment');
const containersOf = (d: K8sObject) => ((d.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers);

function unknownSettings(names: Iterable<string>): string[] {
  return [...names].filter((n) => !ACCEPTED.has(n) && !RUNTIME_ONLY.has(n));
}

describe('deployment files', () => {
  it('name only npm scripts that exist', () => {
    const files = ['docker/Dockerfile', 'docker/compose.yaml', ...k8sFiles.map((f) => `${K8S_DIR}/${f}`)];
    const named = files.flatMap((f) => [...read(f).matchAll(/npm"?,?\s*"?run"?,?\s*"?([\w:-]+)/g)].map((m) => ({ file: f, script: m[1]! })));
    expect(named.length).toBeGreaterThanOrEqual(7);
    expect(named.filter((n) => !SCRIPTS.has(n.script))).toEqual([]);
  });

  it('docker: the apps are set only variables the config accepts', () => {
    const compose = parse(read('docker/compose.yaml'), { merge: true }) as { services: Record<string, { command?: string[]; environment?: Record<string, string> }> };
    const apps = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'npm');
    expect(apps.map(([name]) => name).sort()).toEqual(['ingest', 'query', 'writer']);
    for (const [name, service] of apps) {
      expect(Object.keys(service.environment ?? {}), name).toContain('CLICKHOUSE_URL');
      expect(unknownSettings(Object.keys(service.environment ?? {})), name).toEqual([]);
    }
    const dockerEnv = [...read('docker/Dockerfile').matchAll(/^ENV\s+(.+)$/gm)].flatMap((m) => [...m[1]!.matchAll(/([A-Z_][A-Z0-9_]*)=/g)].map((v) => v[1]!));
    expect(dockerEnv.length).toBeGreaterThan(0);
    expect(unknownSettings(dockerEnv)).toEqual([]);
  });

  it('kubernetes: every variable is a setting, credentials come from a Secret, and the files are all listed', () => {
    const kustomization = parse(read(`${K8S_DIR}/kustomization.yaml`)) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual(k8sFiles.filter((f) => f !== 'kustomization.yaml').sort());
    const byName = new Map(k8sObjects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
    for (const deployment of deployments) {
      for (const container of containersOf(deployment)) {
        const names = (container.env ?? []).map((e) => e.name);
        for (const source of container.envFrom ?? []) {
          const ref = source.configMapRef ? `ConfigMap/${source.configMapRef.name}` : `Secret/${source.secretRef!.name}`;
          const object = byName.get(ref);
          expect(object, `${deployment.metadata.name} reads ${ref}`).toBeDefined();
          names.push(...Object.keys({ ...object!.data, ...object!.stringData }));
        }
        expect(unknownSettings(names), deployment.metadata.name).toEqual([]);
        expect(names).toEqual(expect.arrayContaining(['CLICKHOUSE_URL', 'CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD', 'REDIS_URL']));
      }
    }
    const configMaps = k8sObjects.filter((o) => o.kind === 'ConfigMap');
    for (const secretName of ['CLICKHOUSE_PASSWORD', 'CLICKHOUSE_USER', 'REDIS_URL', 'EVALUATOR_MODEL_API_KEY']) {
      expect(configMaps.filter((c) => c.data?.[secretName] !== undefined), `${secretName} belongs in a Secret`).toEqual([]);
    }
  });

  it('kubernetes: each part is a Deployment ready on /readyz, drains before the kubelet kills it, and writers scale with an HPA', () => {
    const commands = deployments.flatMap((d) => containersOf(d).map((c) => c.command?.join(' ')));
    expect(commands.sort()).toEqual(['npm run start:ingest', 'npm run start:query', 'npm run start:writer']);
    const shutdownMs = Number(k8sObjects.find((o) => o.kind === 'ConfigMap')!.data!.SHUTDOWN_TIMEOUT_MS);
    for (const deployment of deployments) {
      for (const container of containersOf(deployment)) expect(container.readinessProbe?.httpGet?.path, deployment.metadata.name).toBe('/readyz');
      const grace = (deployment.spec as { template: { spec: { terminationGracePeriodSeconds: number } } }).template.spec.terminationGracePeriodSeconds;
      expect(grace * 1000, deployment.metadata.name).toBeGreaterThan(shutdownMs);
    }
    const hpa = k8sObjects.find((o) => o.kind === 'HorizontalPodAutoscaler');
    const writer = deployments.find((d) => containersOf(d).some((c) => c.command?.includes('start:writer')))!;
    expect(hpa?.spec).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: writer.metadata.name } });
  });
});
