/**
 * The producer side of every queue, over one shared connection: BullMQ `Queue`s created on first
 * use with the contract's default job options and the fleet's key prefix.
 */
import { Queue, type DefaultJobOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { queueContract, type QueueName } from './queues/index.js';

export interface QueueSet {
  readonly prefix: string;
  queue(name: QueueName): Queue;
  close(): Promise<void>;
}

export interface QueueSetOptions {
  connection: Redis;
  prefix: string;
  /** Merged over every queue's defaults (e.g. a short backoff in tests). */
  jobOptionOverrides?: DefaultJobOptions;
}

export function createQueueSet(options: QueueSetOptions): QueueSet {
  const queues = new Map<QueueName, Queue>();
  return {
    prefix: options.prefix,
    queue(name) {
      let queue = queues.get(name);
      if (!queue) {
        queue = new Queue(name, {
          connection: options.connection,
          prefix: options.prefix,
          defaultJobOptions: { ...queueContract(name).defaultJobOptions, ...options.jobOptionOverrides },
        });
        // connection errors reach the caller through the failing command and the connection's own
        // listener; without a listener here BullMQ prints each reconnect attempt to stderr
        queue.on('error', () => undefined);
        queues.set(name, queue);
      }
      return queue;
    },
    async close() {
      // the shared connection belongs to the caller; closing a Queue leaves it open
      await Promise.allSettled([...queues.values()].map((queue) => queue.close()));
      queues.clear();
    },
  };
}
