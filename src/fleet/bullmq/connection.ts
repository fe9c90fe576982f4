/**
 * Redis connection settings, Langfuse style: producers fail fast (an API request that cannot
 * enqueue should error now, not hang), workers wait out a Redis restart (BullMQ requires
 * `maxRetriesPerRequest: null` on the blocking connections it uses to fetch jobs).
 */
import { Redis } from 'ioredis';
import type { RedisOptions } from 'bullmq';

/** Options for a Worker: BullMQ opens its own connections from them. */
export function workerConnectionOptions(redisUrl: string): RedisOptions {
  return { url: redisUrl, maxRetriesPerRequest: null, enableOfflineQueue: true, connectionName: 'assay-worker' };
}

/** One shared client for adding jobs and publishing cancellations: commands error at once while Redis is away. */
export function openProducerConnection(redisUrl: string): Redis {
  return new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectionName: 'assay-producer' });
}

/** A subscriber connection: it must outlive Redis restarts, so it retries forever. */
export function openSubscriberConnection(redisUrl: string): Redis {
  return new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: 'assay-cancel-subscriber' });
}
