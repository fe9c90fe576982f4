import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  QUEUE_GROUPS,
  QUEUE_NAMES,
  parseQueueSelection,
  queueContract,
  queueKey,
  type QueueName,
} from '../../../src/fleet/bullmq/queues/index.js';
import { renderKustomization } from '../../support/kustomize.js';

const ROOT = join(import.meta.dirname, '../../..');
const K8S_DIR = join(ROOT, 'k8s');

interface Manifest {
  kind: string;
  metadata: { name: string };
  [key: string]: unknown;
}

/** What `kubectl apply -k k8s/` applies: the kustomization rendered (workers from one base plus a patch per group), plus the Secret template. */
function loadManifests(): Manifest[] {
  const secret = YAML.parse(readFileSync(join(K8S_DIR, 'secret.example.yaml'), 'utf8')) as Manifest;
  return [...(renderKustomization(K8S_DIR) as Manifest[]), secret];
}

// manifests are untyped YAML: read field by field (`any`) and let the assertions judge
function configValue(manifests: Manifest[], key: string): string {
  const config = manifests.find((manifest) => manifest.kind === 'ConfigMap' && manifest.metadata.name === 'assay-config') as any;
  const value = config?.data?.[key];
  if (typeof value !== 'string') throw new Error(`assay-config has no ${key}`);
  return value;
}

function workerEnv(deployment: any, name: string): string | undefined {
  const env = deployment.spec.template.spec.containers[0].env as Array<{ name: string; value: string }>;
  return env.find((variable) => variable.name === name)?.value;
}

function workerQueues(deployment: any): QueueName[] {
  return parseQueueSelection(workerEnv(deployment, 'ASSAY_WORKER_QUEUES') ?? '');
}

/** Jobs in flight per pod: the Deployment's ASSAY_WORKER_CONCURRENCY, else the queue's own default. */
function podConcurrency(deployment: any, queue: QueueName): number {
  const override = workerEnv(deployment, 'ASSAY_WORKER_CONCURRENCY');
  return override === undefined ? queueContract(queue).worker.concurrency : Number(override);
}

/**
 * Every way a ScaledObject can silently never fire or scale the wrong pods: a list key that is not
 * `{prefix}:{queue}:{wait|active}` for a queue its Deployment consumes (the n8n pitfall), a missing
 * backlog or in-flight trigger, an in-flight target other than the per-pod concurrency, scaling to 0.
 */
function scalingProblems(manifests: Manifest[]): string[] {
  const problems: string[] = [];
  const prefix = configValue(manifests, 'ASSAY_QUEUE_PREFIX');
  const auths = new Set(
    manifests.filter((manifest) => manifest.kind === 'TriggerAuthentication').map((manifest) => manifest.metadata.name),
  );
  for (const scaled of manifests.filter((manifest) => manifest.kind === 'ScaledObject') as any[]) {
    const name = scaled.metadata.name;
    const deployment = manifests.find(
      (manifest) => manifest.kind === 'Deployment' && manifest.metadata.name === scaled.spec.scaleTargetRef.name,
    );
    if (!deployment) {
      problems.push(`${name}: no Deployment ${scaled.spec.scaleTargetRef.name}`);
      continue;
    }
    const queues = workerQueues(deployment);
    if (!(scaled.spec.minReplicaCount >= 1)) problems.push(`${name}: minReplicaCount must be ≥ 1`);
    const covered = new Set<string>();
    for (const trigger of scaled.spec.triggers as any[]) {
      if (trigger.type !== 'redis') problems.push(`${name}: trigger type ${trigger.type}`);
      if (!auths.has(trigger.authenticationRef?.name))
        problems.push(`${name}: unknown TriggerAuthentication ${trigger.authenticationRef?.name}`);
      const listName = String(trigger.metadata.listName);
      const match = queues
        .flatMap((queue) => (['wait', 'active'] as const).map((type) => ({ queue, type })))
        .find(({ queue, type }) => queueKey(prefix, queue, type) === listName);
      if (!match) {
        problems.push(`${name}: listName ${listName} is not ${prefix}:<queue>:wait|active for a queue it consumes (${queues.join(', ')})`);
        continue;
      }
      covered.add(`${match.queue}:${match.type}`);
      if (match.type === 'active' && Number(trigger.metadata.listLength) !== podConcurrency(deployment, match.queue)) {
        problems.push(
          `${name}: ${listName} listLength ${trigger.metadata.listLength} ≠ per-pod concurrency ${podConcurrency(deployment, match.queue)}`,
        );
      }
    }
    for (const queue of queues)
      for (const type of ['wait', 'active'])
        if (!covered.has(`${queue}:${type}`)) problems.push(`${name}: no trigger on ${queueKey(prefix, queue, type)}`);
  }
  return problems;
}

describe('the Kubernetes manifests', () => {
  const manifests = loadManifests();
  const deployments = manifests.filter(
    (manifest) => manifest.kind === 'Deployment' && manifest.metadata.name.startsWith('assay-workers-'),
  ) as any[];

  it('scale every worker Deployment on list keys its queues really use, under the configured prefix', () => {
    expect(manifests.filter((manifest) => manifest.kind === 'ScaledObject')).toHaveLength(deployments.length);
    expect(scalingProblems(manifests)).toEqual([]);
  });

  describe('when a listName names a queue that does not exist (the n8n "bull:jobs:wait" pitfall)', () => {
    it("is reported, as is a prefix that differs from the workers' one", () => {
      const broken = structuredClone(manifests) as any[];
      const scaled = broken.find((manifest) => manifest.kind === 'ScaledObject');
      scaled.spec.triggers[0].metadata.listName = 'bull:jobs:wait';
      broken.find((manifest) => manifest.kind === 'ConfigMap').data.ASSAY_QUEUE_PREFIX = 'assay';
      const problems = scalingProblems(broken);
      expect(problems.some((problem) => problem.includes('bull:jobs:wait'))).toBe(true);
      expect(problems.filter((problem) => problem.includes('is not assay:')).length).toBeGreaterThan(1);
    });
  });

  describe('when a Deployment raises its concurrency without its in-flight trigger', () => {
    it('is reported: the trigger would keep too many pods for the work in flight', () => {
      const changed = structuredClone(manifests) as any[];
      const deployment = changed.find((manifest) => manifest.kind === 'Deployment' && manifest.metadata.name === 'assay-workers-analyze');
      deployment.spec.template.spec.containers[0].env.push({ name: 'ASSAY_WORKER_CONCURRENCY', value: '32' });
      // one per in-flight trigger of the group: mine, analyze-area and verify
      expect(scalingProblems(changed).filter((problem) => problem.includes('per-pod concurrency 32'))).toHaveLength(3);
    });
  });

  it('deploy each queue group once, and every queue is consumed by exactly one Deployment', () => {
    const consumed = deployments.flatMap((deployment) => workerQueues(deployment));
    expect([...consumed].sort()).toEqual([...QUEUE_NAMES].sort());
    const groups = deployments.map((deployment) => workerQueues(deployment).join(','));
    expect(groups.sort()).toEqual(
      Object.values(QUEUE_GROUPS)
        .map((queues) => queues.join(','))
        .sort(),
    );
  });

  it('give workers a grace period longer than their shutdown timeout, probes on the health port, and a disruption budget', () => {
    const shutdownMs = Number(configValue(manifests, 'ASSAY_WORKER_SHUTDOWN_TIMEOUT_MS'));
    const healthPort = Number(configValue(manifests, 'ASSAY_WORKER_HEALTH_PORT'));
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      const container = pod.containers[0];
      expect(pod.terminationGracePeriodSeconds * 1_000).toBeGreaterThan(shutdownMs);
      expect(container.ports.find((port: any) => port.name === container.readinessProbe.httpGet.port)?.containerPort).toBe(healthPort);
      expect([container.readinessProbe.httpGet.path, container.livenessProbe.httpGet.path]).toEqual(['/readyz', '/healthz']);
      expect(container.resources.requests).toBeDefined();
      const budget = manifests.find(
        (manifest) => manifest.kind === 'PodDisruptionBudget' && manifest.metadata.name === deployment.metadata.name,
      ) as any;
      expect(budget?.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    }
  });

  it('keep secrets out of the ConfigMap and only placeholders in the Secret template', () => {
    const config = manifests.find((manifest) => manifest.kind === 'ConfigMap') as any;
    expect(Object.keys(config.data).filter((key) => /KEY|PASSWORD|SECRET|URL$/.test(key))).toEqual([]);
    const secret = manifests.find((manifest) => manifest.kind === 'Secret') as any;
    for (const [key, value] of Object.entries(secret.stringData) as Array<[string, string]>) {
      // a credential, or a URL carrying one, must be a placeholder; bare addresses may be examples
      const carriesCredential = /KEY|PASSWORD/.test(key) || /:\/\/[^/]*@/.test(value);
      if (carriesCredential) expect(value, key).toContain('CHANGE_ME');
    }
  });
});

describe('docker-compose.yml', () => {
  it('runs one worker service per queue group, all on the same queue prefix as Kubernetes', () => {
    const compose = YAML.parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as any;
    const workers = Object.entries(compose.services as Record<string, any>).filter(([name]) => name.startsWith('worker-'));
    const groups = workers.map(([, service]) => parseQueueSelection(service.environment.ASSAY_WORKER_QUEUES).join(','));
    expect(groups.sort()).toEqual(
      Object.values(QUEUE_GROUPS)
        .map((queues) => queues.join(','))
        .sort(),
    );
    for (const [, service] of workers)
      expect(service.environment.ASSAY_QUEUE_PREFIX).toBe(configValue(loadManifests(), 'ASSAY_QUEUE_PREFIX'));
    expect(compose.services.redis.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction', '--appendonly', 'yes']));
  });
});
