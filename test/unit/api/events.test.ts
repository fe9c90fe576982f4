import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/api/index.js';
import { silentLogger } from '../../../src/logging/index.js';
import type { RunStore } from '../../../src/store/port.js';
import { createApiHarness, type ApiHarness } from './api-harness.js';
import { waitFor } from '../../support/wait-for.js';
import { parseSseFrames, readAll, readFrames, type SseFrame } from './sse.js';

const progressOf = (frames: SseFrame[]) =>
  frames.filter((frame) => frame.event === 'progress').map((frame) => JSON.parse(frame.data!) as { status: string; progress: number });
/** Waits for the progress event that says `progress`, before the test changes the run again (changes between two polls would merge). */
const progressAt = (progress: number) => (frames: SseFrame[]) => progressOf(frames).some((event) => event.progress === progress);

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
      const reading = readFrames(response.body!, 5_000);

      await reading.until('the first progress event', progressAt(0));
      await api.patchRun(runId, { status: 'running', phase: 'exploration', progress: 20, steps_completed: 1 });
      await reading.until('the event at 20 %', progressAt(20));
      await api.patchRun(runId, {
        // a share of steps is rarely a whole number: the event still says a whole percent
        progress: 40.333333333333336,
        steps_completed: 2,
        telemetry: {
          ...(await api.runtime.store.getRun(runId))!.telemetry,
          usage_by_phase: { exploration: { 'offline:analyst': { input_tokens: 1200, output_tokens: 80, cost_usd: 0, calls: 2 } } },
        },
      });
      await reading.until('the event at 40 %', progressAt(40));
      await api.patchRun(runId, { status: 'completed', phase: 'complete', progress: 100, run_type: 'full' });

      const frames = await reading.rest();
      const progress = progressOf(frames);
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
      const reading = readFrames(response.body!, 5_000);
      const heartbeats = (frames: SseFrame[]) => frames.filter((frame) => frame.comments.includes('heartbeat')).length;
      // the unchanged run sends no event, only heartbeats: two of them, one after the other
      const before = await reading.until('two heartbeats', (frames) => heartbeats(frames) >= 2);
      expect(before.filter((frame) => frame.event !== undefined).map((frame) => frame.event)).toEqual(['progress']);
      await api.patchRun(runId, { status: 'cancelled' });
      const frames = await reading.rest();
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
      api = await createApiHarness();
      const runId = await startRun();
      // the project allows one run at a time: the probe's run is another project's
      const other = await api.call('POST', '/api/v1/projects', { id: 'other', name: 'Other', domain: 'ecommerce' });
      expect(other.status).toBe(201);
      const probeRunId = (await api.call('POST', '/api/v1/projects/other/discover', { max_steps: 4 })).json.run_id as string;
      const store = api.runtime.store;
      let reads = 0;
      const countingStore: RunStore = { ...store, getRun: (id) => ((reads += id === runId ? 1 : 0), store.getRun(id)) };
      const app = createApi({
        runtime: { ...api.runtime, store: countingStore },
        launcher: api.launcher,
        // one live stream per key: a second one is admitted only once the first has stopped polling
        config: { ...api.runtime.config, api: { ...api.runtime.config.api, maxStreamsPerKey: 1 } },
        logger: silentLogger,
        events: { pollIntervalMs: 10 },
      });
      const headers = { Authorization: `Bearer ${api.adminKey}` };
      const response = await app.request(`/api/v1/runs/${runId}/events`, { headers });
      const reader = response.body!.getReader();
      await reader.read();
      await waitFor('the stream to poll the store a few times', () => reads > 2);
      await reader.cancel();
      const atCancel = reads;
      // admitted means the first stream's polling loop has exited (its slot is released after its last read)
      await waitFor('a second stream to be admitted', async () => {
        const probe = await app.request(`/api/v1/runs/${probeRunId}/events`, { headers });
        await probe.body?.cancel();
        return probe.status === 200;
      });
      expect(reads - atCancel).toBeLessThanOrEqual(1);
    });
  });
});
