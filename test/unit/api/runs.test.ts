import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finalizeRun } from '../../../src/discovery/phases/finalize.js';
import { explorationStepSchema, recommendationSchema } from '../../../src/domain/index.js';
import { createApiHarness, issuePaths, type ApiHarness } from './api-harness.js';

describe('runs API', () => {
  let api: ApiHarness;
  beforeEach(async () => {
    api = await createApiHarness();
  });
  afterEach(async () => api.close());

  async function discover(body: unknown = {}) {
    return api.call('POST', '/api/v1/projects/shop/discover', body);
  }

  describe('when a discovery is started', () => {
    it('creates a pending run with the server defaults, launches it and answers 202', async () => {
      const response = await discover();
      expect(response.status).toBe(202);
      expect(response.json).toEqual({ run_id: expect.stringMatching(/^run-/), status: 'pending' });
      expect(api.launcher.launched).toEqual([response.json.run_id]);
      const run = await api.call('GET', `/api/v1/runs/${response.json.run_id}`);
      expect(run.json.settings).toMatchObject({
        max_steps: api.runtime.config.run.maxSteps,
        min_steps: api.runtime.config.run.minSteps,
        pack: 'ecommerce',
        areas: [],
      });
    });

    it('keeps a requested area selection and step bounds', async () => {
      const response = await discover({ areas: ['conversion'], max_steps: 5, min_steps: 2 });
      expect(response.status).toBe(202);
      const run = await api.call('GET', `/api/v1/runs/${response.json.run_id}`);
      expect(run.json.settings).toMatchObject({ max_steps: 5, min_steps: 2, areas: ['conversion'] });
    });

    it('refuses a second run while one is active (409), and launches nothing', async () => {
      const first = await discover();
      const second = await discover();
      expect(second.status).toBe(409);
      expect(second.json.error.details).toEqual({ runId: first.json.run_id });
      expect(api.launcher.launched).toHaveLength(1);
    });

    it('lets only one of two simultaneous requests through', async () => {
      const answers = await Promise.all([discover(), discover(), discover()]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409, 409]);
    });

    it('refuses a project that is not ready (409)', async () => {
      await api.call('POST', '/api/v1/projects', { id: 'wiz', name: 'Wizard', domain: 'ecommerce', generate_pack: { enabled: true } });
      const response = await api.call('POST', '/api/v1/projects/wiz/discover', {});
      expect(response.status).toBe(409);
      expect(response.json.error.message).toMatch(/pack_generation_pending/);
    });

    it('answers 400 naming the field for min_steps above max_steps, unknown areas and bad numbers', async () => {
      const steps = await discover({ max_steps: 5, min_steps: 6 });
      expect(steps.status).toBe(400);
      expect(issuePaths(steps.json)).toEqual(['min_steps']);
      const areas = await discover({ areas: ['conversion', 'horoscopes'] });
      expect(areas.status).toBe(400);
      expect(issuePaths(areas.json)).toEqual(['areas.1']);
      expect(areas.json.error.message).toMatch(/horoscopes/);
      const numbers = await discover({ max_steps: 0, min_steps: 1.5 });
      expect(issuePaths(numbers.json)).toEqual(['max_steps', 'min_steps']);
      expect(api.launcher.launched).toHaveLength(0);
    });

    it('answers 404 for an unknown project', async () => {
      expect((await api.call('POST', '/api/v1/projects/nope/discover', {})).status).toBe(404);
    });

    it('marks the run failed when the launcher cannot start it, so the next run is not blocked', async () => {
      api.launcher.launchError = new Error('redis down at 10.0.0.1');
      const failed = await discover();
      expect(failed.status).toBe(500);
      expect(failed.text).not.toContain('10.0.0.1');
      const [run] = await api.runtime.store.listRuns('shop');
      expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining('could not be started') });
      api.launcher.launchError = undefined;
      expect((await discover()).status).toBe(202);
    });
  });

  describe('when a run is cancelled', () => {
    it('cancels a pending run through the launcher (202) and refuses a second cancel (409)', async () => {
      const { json } = await discover();
      const cancelled = await api.call('DELETE', `/api/v1/runs/${json.run_id}`);
      expect(cancelled.status).toBe(202);
      expect(cancelled.json).toMatchObject({ id: json.run_id, status: 'cancelled' });
      expect(api.launcher.cancelled).toEqual([json.run_id]);
      const again = await api.call('DELETE', `/api/v1/runs/${json.run_id}`);
      expect(again.status).toBe(409);
      expect(api.launcher.cancelled).toHaveLength(1);
    });

    it('answers 404 for an unknown run', async () => {
      expect((await api.call('DELETE', '/api/v1/runs/run-missing')).status).toBe(404);
    });
  });

  describe('when a run is read', () => {
    it('has no result or report before it finishes (404 saying so), and both after', async () => {
      const { json } = await discover();
      const early = await api.call('GET', `/api/v1/runs/${json.run_id}/result`);
      expect(early.status).toBe(404);
      expect(early.json.error.message).toMatch(/no result yet \(status pending\)/);
      expect((await api.call('GET', `/api/v1/runs/${json.run_id}/report`)).status).toBe(404);

      await finalizeRun(api.runtime, json.run_id);
      const result = await api.call('GET', `/api/v1/runs/${json.run_id}/result`);
      expect(result.status).toBe(200);
      expect(result.json).toMatchObject({ run_id: json.run_id, project_id: 'shop' });
      const report = await api.call('GET', `/api/v1/runs/${json.run_id}/report`);
      expect(report.status).toBe(200);
      expect(report.headers.get('content-type')).toMatch(/^text\/html/);
      expect(report.text).toMatch(/^<!DOCTYPE html>/i);
      expect(report.text).toContain(json.run_id);
    });

    it('lists steps in order and the project runs as summaries without telemetry', async () => {
      const { json } = await discover();
      for (const step of [2, 1]) {
        await api.runtime.store.upsertStep(
          explorationStepSchema.parse({ run_id: json.run_id, step, action: 'done', timestamp: '2026-11-23T09:00:00.000Z' }),
        );
      }
      const steps = await api.call('GET', `/api/v1/runs/${json.run_id}/steps`);
      expect(steps.json.steps.map((step: { step: number }) => step.step)).toEqual([1, 2]);
      const runs = await api.call('GET', '/api/v1/projects/shop/runs?limit=5');
      expect(runs.json.runs).toHaveLength(1);
      expect(runs.json.runs[0]).toMatchObject({ id: json.run_id, status: 'pending' });
      expect(runs.json.runs[0].telemetry).toBeUndefined();
      expect((await api.call('GET', '/api/v1/projects/shop/runs?limit=0')).status).toBe(400);
    });

    it('answers 404 for every view of an unknown run', async () => {
      for (const view of ['', '/steps', '/result', '/report', '/events']) {
        expect((await api.call('GET', `/api/v1/runs/run-missing${view}`)).status, view).toBe(404);
      }
    });
  });

  describe('when a cost estimate is asked for', () => {
    it('computes it in-process for the project pack and the served model', async () => {
      const response = await api.call('POST', '/api/v1/projects/shop/discover/estimate', { max_steps: 10 });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({
        project_id: 'shop',
        pack: 'ecommerce',
        max_steps: 10,
        catalog_tokens_source: 'default',
        llm: { model: 'offline:analyst' },
      });
      expect(response.json.breakdown.exploration.calls).toBe(10);
      expect(response.json.breakdown.analysis.calls).toBe(response.json.areas.length);
      // the offline model caches nothing and costs nothing; both costs are there
      expect(response.json.llm).toMatchObject({ cost_usd: 0, cost_usd_cached: 0, cache_read_tokens: 0, cache_write_tokens: 0 });
      expect(api.launcher.launched).toHaveLength(0);
    });

    it('grows with the steps and shrinks with an area selection', async () => {
      const small = await api.call('POST', '/api/v1/projects/shop/discover/estimate', { max_steps: 5 });
      const large = await api.call('POST', '/api/v1/projects/shop/discover/estimate', { max_steps: 50 });
      expect(large.json.breakdown.exploration.input_tokens).toBeGreaterThan(small.json.breakdown.exploration.input_tokens);
      const one = await api.call('POST', '/api/v1/projects/shop/discover/estimate', { max_steps: 5, areas: ['conversion'] });
      expect(one.json.areas).toEqual(['conversion']);
      expect(one.json.breakdown.analysis.calls).toBe(1);
    });

    it('uses the catalog size the last run measured', async () => {
      const { json } = await discover();
      await api.patchRun(json.run_id, { context: { previous_context: '', warehouse_hash: 'h', catalog_tokens: 777 } });
      const response = await api.call('POST', '/api/v1/projects/shop/discover/estimate', {});
      expect(response.json).toMatchObject({ catalog_tokens: 777, catalog_tokens_source: 'last_run' });
    });

    it('answers 400 for unknown areas and 404 for an unknown project', async () => {
      const areas = await api.call('POST', '/api/v1/projects/shop/discover/estimate', { areas: ['horoscopes'] });
      expect(issuePaths(areas.json)).toEqual(['areas.0']);
      expect((await api.call('POST', '/api/v1/projects/nope/discover/estimate', {})).status).toBe(404);
    });
  });

  describe('when feedback is given', () => {
    it('keeps one rating per target (the latest) and lists it for the project', async () => {
      const { json } = await discover();
      const recommendation = recommendationSchema.parse({ id: 'rec-1', title: 'Fix mobile checkout', priority: 1 });
      await api.patchRun(json.run_id, { recommendations: [recommendation] });
      const like = await api.call('POST', `/api/v1/runs/${json.run_id}/feedback`, {
        target_type: 'recommendation',
        target_id: 'rec-1',
        rating: 'like',
      });
      expect(like.status).toBe(200);
      const dislike = await api.call('POST', `/api/v1/runs/${json.run_id}/feedback`, {
        target_type: 'recommendation',
        target_id: 'rec-1',
        rating: 'dislike',
        comment: 'too vague',
      });
      expect(dislike.json.id).toBe(like.json.id);
      const listed = await api.call('GET', '/api/v1/projects/shop/feedback');
      expect(listed.json.feedback).toEqual([
        expect.objectContaining({ target_id: 'rec-1', rating: 'dislike', comment: 'too vague', run_id: json.run_id }),
      ]);
    });

    it('accepts a stored exploration step as a target', async () => {
      const { json } = await discover();
      await api.runtime.store.upsertStep(
        explorationStepSchema.parse({ run_id: json.run_id, step: 1, action: 'done', timestamp: '2026-11-23T09:00:00.000Z' }),
      );
      expect(
        (
          await api.call('POST', `/api/v1/runs/${json.run_id}/feedback`, {
            target_type: 'exploration_step',
            target_id: '1',
            rating: 'like',
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await api.call('POST', `/api/v1/runs/${json.run_id}/feedback`, {
            target_type: 'exploration_step',
            target_id: '2',
            rating: 'like',
          })
        ).status,
      ).toBe(404);
    });

    it('answers 404 for a target the run does not have and 400 naming a bad rating', async () => {
      const { json } = await discover();
      const missing = await api.call('POST', `/api/v1/runs/${json.run_id}/feedback`, {
        target_type: 'insight',
        target_id: 'conversion-1',
        rating: 'like',
      });
      expect(missing.status).toBe(404);
      const bad = await api.call('POST', `/api/v1/runs/${json.run_id}/feedback`, {
        target_type: 'insight',
        target_id: 'conversion-1',
        rating: 'meh',
      });
      expect(bad.status).toBe(400);
      expect(issuePaths(bad.json)).toEqual(['rating']);
      expect((await api.call('GET', '/api/v1/projects/nope/feedback')).status).toBe(404);
    });
  });
});
