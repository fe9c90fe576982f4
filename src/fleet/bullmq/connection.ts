/**
 * Redis connection settings, Langfuse style: producers fail fast (an API request that cannot
 * enqueue should error now, not hang), workers wait out a Redis restart (BullMQ requires
 * `maxRetriesPerRequest: null` on the blocking connections it uses to fetch jobs).
 */
import { Redis } from 'ioredis';
import type { RedisOptions } from 'bullmq';
import { redactUrl } from '../../config/index.js';
import { UnavailableError, describeError } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';

/** How long start-up waits for Redis to answer before saying it cannot be reached. */
export const REDIS_STARTUP_TIMEOUT_MS = 3_000;

/**
 * Checks once, at start-up, that Redis answers: a process that cannot reach it says so in one line
 * (where, why, what to do) instead of every queue's connection logging the same refusal forever.
 */
export async function assertRedisReachable(redisUrl: string, timeoutMs = REDIS_STARTUP_TIMEOUT_MS): Promise<void> {
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let lastError: unknown;
  probe.on('error', (error: unknown) => {
    lastError = error;
  });
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    const cause = lastError ?? error;
    const code = (cause as NodeJS.ErrnoException).code;
    throw new UnavailableError(
      `Redis at ${redactUrl(redisUrl)} cannot be reached (${code ?? describeError(cause)}): start it (redis-server, or \`assay fleet up\`) or point REDIS_URL at a running one`,
      { cause },
    );
  } finally {
    probe.disconnect();
  }
}

/** Logs a connection's first error of an outage and its recovery, instead of ioredis printing every retry's stack. */
export function reportConnectionErrors(connection: Redis, logger: Logger, name: string): void {
  let down = false;
  connection.on('error', (error: unknown) => {
    if (!down) logger.warn({ connection: name, err: describeError(error) }, 'Redis is unreachable: retrying');
    down = true;
  });
  connection.on('ready', () => {
    if (down) logger.info({ connection: name }, 'Redis is reachable again');
    down = false;
  });
}

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
