/** What a queue's handler receives: the validated payload, the job (for fan-out), its abort signal and the ports. */
import type { Job } from 'bullmq';
import type { DiscoveryDeps } from '../../../discovery/context.js';
import type { QueueSet } from '../queue-set.js';
import type { Logger } from '../../../logging/index.js';

export interface JobContext<Payload> {
  job: Job;
  /** The worker's lock token for this job: needed to park it in `waiting-children`. */
  token: string;
  /** Aborted when the run is cancelled or the worker shuts down; passed into every phase. */
  signal: AbortSignal;
  payload: Payload;
  /** The process's ports, with `logger` bound to `{ queue, jobId, runId }`. */
  deps: DiscoveryDeps;
  logger: Logger;
  /** Producers for adding children. */
  queues: QueueSet;
}

export type JobHandler<Payload, Result> = (context: JobContext<Payload>) => Promise<Result>;
