import { describe, expect, it } from 'vitest';
import {
  QUEUES,
  QUEUE_GROUPS,
  QUEUE_NAMES,
  analyzeAreaQueue,
  cancelChannel,
  coordinatorPayloadSchema,
  exploreQueue,
  parseQueueSelection,
  queueKey,
  verifyQueue,
} from '../../../src/fleet/bullmq/queues/index.js';
import { ConfigError } from '../../../src/errors/index.js';

const RUN_ID = 'run-20261123-090000-abc123';

const SAMPLE_PAYLOADS: Record<string, unknown> = {
  mine: { runId: 'run-1' },
  coordinator: { runId: RUN_ID },
  explore: { runId: RUN_ID, step: 3 },
  index: { runId: RUN_ID },
  'analyze-area': { runId: RUN_ID, areaId: 'conversion' },
  verify: { runId: RUN_ID, insightId: 'conversion-2' },
  recommend: { runId: RUN_ID },
  maintenance: { task: 'reconcile-runs' },
};

describe('the queue contract', () => {
  it('gives every queue a unique name, a sample payload that parses, and a deterministic job id without ":"', () => {
    expect(new Set(QUEUE_NAMES).size).toBe(QUEUES.length);
    for (const queue of QUEUES) {
      const payload = (queue.payload as { parse(value: unknown): unknown }).parse(SAMPLE_PAYLOADS[queue.name]);
      const jobId = (queue.jobId as (value: unknown) => string)(payload);
      expect(jobId, queue.name).not.toContain(':');
      expect(jobId, queue.name).not.toMatch(/^\d+$/);
      expect((queue.jobId as (value: unknown) => string)(structuredClone(payload))).toBe(jobId);
    }
  });

  it('keys children by run and natural key, so two runs never share a job id', () => {
    expect(exploreQueue.jobId({ runId: RUN_ID, step: 3 })).toBe(`${RUN_ID}-explore-3`);
    expect(analyzeAreaQueue.jobId({ runId: RUN_ID, areaId: 'conversion', stage: 'gather' })).toBe(`${RUN_ID}-area-conversion`);
    expect(verifyQueue.jobId({ runId: 'other-run', insightId: 'conversion-2' })).toBe('other-run-verify-conversion-2');
  });

  it('retries every queue with jittered exponential backoff and bounded retention', () => {
    for (const queue of QUEUES) {
      expect(queue.defaultJobOptions.attempts, queue.name).toBeGreaterThan(1);
      expect(queue.defaultJobOptions.backoff, queue.name).toMatchObject({ type: 'exponential', jitter: expect.any(Number) });
      expect(queue.defaultJobOptions.removeOnFail, queue.name).toMatchObject({ age: expect.any(Number) });
    }
  });

  describe('when a payload carries a ":" or a foreign field type', () => {
    it('refuses it at the boundary', () => {
      expect(exploreQueue.payload.safeParse({ runId: 'run:1', step: 1 }).success).toBe(false);
      expect(exploreQueue.payload.safeParse({ runId: RUN_ID, step: 0 }).success).toBe(false);
      expect(verifyQueue.payload.safeParse({ runId: RUN_ID, insightId: 'a:b' }).success).toBe(false);
      // a coordinator job id is the run id, and BullMQ refuses all-digit custom ids
      expect(coordinatorPayloadSchema.safeParse({ runId: '12345' }).success).toBe(false);
    });
  });

  it('starts a coordinator at its first stage', () => {
    expect(coordinatorPayloadSchema.parse({ runId: RUN_ID })).toEqual({ runId: RUN_ID, stage: 'schema', step: 0 });
  });

  it('puts every queue in exactly one deployment group', () => {
    expect(Object.values(QUEUE_GROUPS).flat().sort()).toEqual([...QUEUE_NAMES].sort());
  });

  it('names BullMQ keys and the cancellation channel under the prefix', () => {
    expect(queueKey('bull', 'analyze-area', 'wait')).toBe('bull:analyze-area:wait');
    expect(cancelChannel('test-1')).toBe('test-1:assay:cancel-run');
  });
});

describe('choosing the queues a worker consumes', () => {
  it('means every queue when nothing is named', () => {
    expect(parseQueueSelection('')).toEqual([...QUEUE_NAMES]);
    expect(parseQueueSelection(' , ')).toEqual([...QUEUE_NAMES]);
  });

  it('trims and de-duplicates names', () => {
    expect(parseQueueSelection(' explore, index ,explore')).toEqual(['explore', 'index']);
  });

  describe('when a name is not a queue', () => {
    it('throws a ConfigError naming it and the valid queues', () => {
      expect(() => parseQueueSelection('explore,jobs')).toThrow(ConfigError);
      expect(() => parseQueueSelection('explore,jobs')).toThrow(/unknown queue\(s\) jobs.*analyze-area/);
    });
  });
});
