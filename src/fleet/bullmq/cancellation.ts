/**
 * Fleet-wide cancellation: the launcher marks the run cancelled in the store (every job checks that
 * before spending tokens) and publishes the run id, so workers abort the run's jobs already in
 * flight instead of letting their LLM calls finish.
 */
import type { Redis } from 'ioredis';
import { cancelChannel, runIdSchema } from './queues/index.js';
import type { Logger } from '../../logging/index.js';

export async function publishCancellation(connection: Redis, prefix: string, runId: string): Promise<void> {
  await connection.publish(cancelChannel(prefix), runId);
}

/** Calls `onCancel(runId)` for every cancellation published under `prefix`. Resolves once subscribed. */
export async function subscribeToCancellations(
  subscriber: Redis,
  prefix: string,
  onCancel: (runId: string) => void,
  logger: Logger,
): Promise<void> {
  const channel = cancelChannel(prefix);
  subscriber.on('message', (received: string, message: string) => {
    if (received !== channel) return;
    const runId = runIdSchema.safeParse(message);
    if (runId.success) onCancel(runId.data);
    else logger.warn({ channel }, 'ignored a malformed cancellation message');
  });
  await subscriber.subscribe(channel);
}
