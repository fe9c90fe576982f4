/**
 * Fan-out with BullMQ's parent/child dependencies. Every child has a deterministic job id (a
 * repeated add is a no-op, BullMQ #1793), and `ignoreDependencyOnFailure`, so a child that fails
 * after its retries is moved to the parent's ignored failures and the parent still resumes: the
 * parent reads those failures and records them on the run instead of waiting forever.
 */
import type { Job } from 'bullmq';
import type { QueueContract, QueueName } from './queues/index.js';
import type { QueueSet } from './queue-set.js';

export type ChildAdd = 'added' | 'exists' | 'failed_before';

/**
 * Adds `payload` as a child of `parent`, unless a job with the same id already failed: re-adding a
 * failed job under a parent puts it back among the parent's pending dependencies, where it would
 * never settle and the parent would wait forever.
 */
export async function addChild<Payload>(
  queues: QueueSet,
  contract: QueueContract<QueueName, Payload, unknown>,
  payload: Payload,
  parent: Job,
): Promise<ChildAdd> {
  const queue = queues.queue(contract.name);
  const jobId = contract.jobId(payload);
  const existing = await queue.getJob(jobId);
  if (existing && (await existing.isFailed())) return 'failed_before';
  if (!parent.id) throw new TypeError(`parent job of ${jobId} has no id`);
  await queue.add(contract.jobName, payload, {
    jobId,
    parent: { id: parent.id, queue: parent.queueQualifiedName },
    ignoreDependencyOnFailure: true,
  });
  return existing ? 'exists' : 'added';
}

/** The fully qualified key BullMQ uses for a child in its parent's dependency hashes: `{prefix}:{queue}:{id}`. */
function childKey(prefix: string, queue: QueueName, jobId: string): string {
  return `${prefix}:${queue}:${jobId}`;
}

/** What a resumed parent knows about its children: their return values and the failures it was told to ignore. */
export interface ChildOutcomes {
  valueOf(queue: QueueName, jobId: string): unknown;
  failureOf(queue: QueueName, jobId: string): string | undefined;
}

export async function readChildOutcomes(parent: Job): Promise<ChildOutcomes> {
  const [values, failures] = await Promise.all([parent.getChildrenValues(), parent.getIgnoredChildrenFailures()]);
  return {
    valueOf: (queue, jobId) => values[childKey(parent.prefix, queue, jobId)],
    failureOf: (queue, jobId) => failures[childKey(parent.prefix, queue, jobId)],
  };
}
