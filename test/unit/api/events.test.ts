import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/api/index.js';
import { silentLogger } from '../../../src/logging/index.js';
import type { RunStore } from '../../../src/store/port.js';
import { createApiHarness, type ApiHarness } from './api-harness.js';
import { parseSseFrames, readAll } from './sse.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('run progress events (SSE)', () => {
  let api: ApiHarness;
  afterEach(async () => api.close());

  async function startRun(): Promise<string> {
    const { json } = await api.call('POST', '/api/v1/projects/shop/discover', { max_steps: 4 });
    return json.run_id as string;
  }

  describe('when a run moves to completion while a client listens', () => {
    it('sends one progress event per change, then an end event, and closes the stream', async () => {
      api = await createApiHarness();
      const runId = await startRun();
      const response = await api.app.request(`/api/v1/runs/${runId}/events`, { headers: { Authorization: `Bearer ${api.adminKey}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reading = readAll(response.body!, 5_000);

      await pause(40);
      await api.patchRun(runId, { status: 'running', phase: 'exploration', progress: 20, steps_completed: 1 });
      await pause(40);
      await api.patchRun(runId, {
        // a share of steps is rarely a whole number: the event still says a whole percent
        progress: 40.333333333333336,
        steps_completed: 2,
        telemetry: {
          ...(await api.runtime.store.getRun(runId))!.telemetry,
          usage_by_phase: { exploration: { 'offline:analyst': { input_tokens: 1200, output_tokens: 80, cost_usd: 0, calls: 2 } } },
        },
      });
      await pause(40);
      await api.patchRun(runId, { status: 'completed', phase: 'complete', progress: 100, run_type: 'full' });

      const frames = parseSseFrames(await reading);
      const progress = frames.filter((frame) => frame.event === 'progress').map((frame) => JSON.parse(frame.data!));
      expect(progress.map((event) => [event.status, event.progress])).toEqual([
        ['pending', 0],
        ['running', 20],
        ['running', 40],
        ['completed', 100],
      ]);
      expect(progress[2]).toMatchObject({ steps_completed: 2, max_steps: 4, tokens: { input_tokens: 1200, output_tokens: 80, calls: 2 } });
      const last = frames.at(-1)!;
      expect(last.event).toBe('end');
      expect(JSON.parse(last.data!)).toEqual({ run_id: runId, status: 'completed', run_type: 'full' });
      const ids = frames.filter((frame) => frame.id !== undefined).map((frame) => Number(frame.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
    });
  });

  describe('when nothing changes for longer than the heartbeat interval', () => {
    it('sends heartbeat comments between events', async () => {
      api = await createApiHarness({ api: { events: { pollIntervalMs: 10, heartbeatMs: 50 } } });
      const runId = await startRun();
      const response = await api.app.request(`/api/v1/runs/${runId}/events`, { headers: { Authorization: `Bearer ${api.adminKey}` } });
      const reading = readAll(response.body!, 5_000);
      await pause(200);
      await api.patchRun(runId, { status: 'cancelled' });
      const frames = parseSseFrames(await reading);
      expect(frames.filter((frame) => frame.comments.includes('heartbeat')).length).toBeGreaterThanOrEqual(2);
      expect(frames.at(-1)!.event).toBe('end');
    });
  });

  describe('when the run is already terminal', () => {
    it('sends its state and the end event at once', async () => {
      api = await createApiHarness();
      const runId = await startRun();
      await api.patchRun(runId, { status: 'failed', error: 'boom' });
      const frames = parseSseFrames(
        await readAll(
          (await api.app.request(`/api/v1/runs/${runId}/events`, { headers: { Authorization: `Bearer ${api.adminKey}` } })).body!,
          2_000,
        ),
      );
      expect(frames.map((frame) => frame.event)).toEqual(['progress', 'end']);
      expect(JSON.parse(frames[0]!.data!)).toMatchObject({ status: 'failed', error: 'boom' });
    });
  });

  describe('when the client goes away', () => {
    it('stops polling the store', async () => {
      let reads = 0;
      api = await createApiHarness();
      const runId = await startRun();
      const store = api.runtime.store;
      const countingStore: RunStore = { ...store, getRun: (id) => ((reads += 1), store.getRun(id)) };
      const app = createApi({
        runtime: { ...api.runtime, store: countingStore },
        launcher: api.launcher,
        config: api.runtime.config,
        logger: silentLogger,
        events: { pollIntervalMs: 10 },
      });
      const response = await app.request(`/api/v1/runs/${runId}/events`, { headers: { Authorization: `Bearer ${api.adminKey}` } });
      const reader = response.body!.getReader();
      await reader.read();
      await pause(60);
      expect(reads).toBeGreaterThan(2);
      await reader.cancel();
      await pause(30);
      const afterCancel = reads;
      await pause(120);
      expect(reads - afterCancel).toBeLessThanOrEqual(1);
    });
  });
});
