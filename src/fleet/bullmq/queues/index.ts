/**
 * The queue contract of the fleet: every queue, its payload and result schemas, job ids and
 * default options. The only place queue names live; the API, the launcher, the workers, the
 * Kubernetes manifests (checked by a test) and the docs all refer to these.
 */
import { ConfigError } from '../../../errors/index.js';
import { analyzeAreaQueue } from './analyze-area.js';
import type { QueueContract } from './contract.js';
import { coordinatorQueue } from './coordinator.js';
import { exploreQueue } from './explore.js';
import { indexQueue } from './index-queue.js';
import { maintenanceQueue } from './maintenance.js';
import { mineQueue } from './mine.js';
import { recommendQueue } from './recommend.js';
import { verifyQueue } from './verify.js';

export * from './contract.js';
export * from './coordinator.js';
export * from './explore.js';
export * from './index-queue.js';
export * from './mine.js';
export * from './analyze-area.js';
export * from './verify.js';
export * from './recommend.js';
export * from './maintenance.js';

export const QUEUES = [
  coordinatorQueue,
  exploreQueue,
  indexQueue,
  mineQueue,
  analyzeAreaQueue,
  verifyQueue,
  recommendQueue,
  maintenanceQueue,
] as const;
export type QueueName = (typeof QUEUES)[number]['name'];
export const QUEUE_NAMES: readonly QueueName[] = QUEUES.map((queue) => queue.name);

export function queueContract(name: QueueName): QueueContract {
  const contract = QUEUES.find((queue) => queue.name === name);
  if (!contract) throw new ConfigError(`unknown queue "${name}" (queues: ${QUEUE_NAMES.join(', ')})`);
  return contract as QueueContract;
}

/**
 * Queues deployed together (one Kubernetes Deployment each): sequential exploration with the
 * indexing it depends on; the fan-out of areas and their verifications; and the light, rare
 * stages that start and end a run, with the fleet's housekeeping.
 */
export const QUEUE_GROUPS: Readonly<Record<string, readonly QueueName[]>> = {
  explore: ['explore', 'index'],
  analyze: ['mine', 'analyze-area', 'verify'],
  control: ['coordinator', 'recommend', 'maintenance'],
};

/** `explore, index` → the queue names; empty means every queue. Unknown names are a config error. */
export function parseQueueSelection(text: string): QueueName[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) return [...QUEUE_NAMES];
  const unknown = names.filter((name) => !QUEUE_NAMES.includes(name as QueueName));
  if (unknown.length > 0) {
    throw new ConfigError(`unknown queue(s) ${unknown.join(', ')} in ASSAY_WORKER_QUEUES / --queues (queues: ${QUEUE_NAMES.join(', ')})`);
  }
  return [...new Set(names as QueueName[])];
}

/** BullMQ's Redis key for one of a queue's structures: `{prefix}:{queue}:{type}` (`wait`, `active`, `prioritized`…). */
export function queueKey(prefix: string, queue: QueueName, type: string): string {
  return `${prefix}:${queue}:${type}`;
}

/** The pub/sub channel on which a cancelled run's in-flight jobs are aborted, fleet-wide. */
export function cancelChannel(prefix: string): string {
  return `${prefix}:assay:cancel-run`;
}
