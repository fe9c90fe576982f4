import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finalizeRun } from '../../../src/discovery/phases/finalize.js';
import { failedMining } from '../../../src/domain/index.js';
import { createApiHarness, type ApiHarness } from '../api/api-harness.js';

describe('when statements of a run hit the statement timeout', () => {
  let api: ApiHarness;
  let runId: string;

  beforeEach(async () => {
    api = await createApiHarness();
    runId = (await api.call('POST', '/api/v1/projects/shop/discover', { max_steps: 2 })).json.run_id;
    const run = await api.runtime.store.getRun(runId);
    const requested = run?.settings.areas ?? [];
    const areas = (requested.length > 0 ? requested : ['pricing', 'retention']).map((id) => ({
      area_id: id,
      area_name: id,
      status: 'completed' as const,
      insights: [],
      selected_steps: [],
      dropped_steps: [],
    }));
    await api.patchRun(runId, { areas: areas as never, exploration_done_reason: 'done' as never });
  });

  afterEach(async () => {
    await api.close();
  });

  it('is full when every area completed and nothing timed out', async () => {
    const result = await finalizeRun(api.runtime, runId);
    expect(result.run_type).toBe('full');
    expect(result.query_timeouts).toBeUndefined();
  });

  it('is partial, counts them per stage, and says so among the run errors', async () => {
    const mining = { ...failedMining({ fdr: 0.05, durationMs: 10, error: 'x' }), status: 'completed' as const, timed_out_queries: 2 };
    await api.patchRun(runId, { mining });
    const result = await finalizeRun(api.runtime, runId);
    expect(result.run_type).toBe('partial');
    expect(result.query_timeouts).toEqual({ exploration: 0, mining: 2, verification: 0 });
    expect(result.summary.errors.some((error) => error.startsWith('2 queries timed out (mining 2)'))).toBe(true);
    expect((await api.runtime.store.getRun(runId))?.run_type).toBe('partial');
  });
});
