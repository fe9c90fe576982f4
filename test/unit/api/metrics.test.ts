import { afterEach, describe, expect, it } from 'vitest';
import { createApiMetrics, type QueueDepthSource } from '../../../src/api/index.js';
import { createApiHarness, type ApiHarness } from './api-harness.js';

/** `name{labels} value` per sample line; every non-comment line of the exposition must be one. */
const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)$/i;

/** The value of the first sample of `name` whose labels include `labels`. */
function sampleValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = SAMPLE_LINE.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => present.includes(`${key}="${value}"`))) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  let api: ApiHarness;
  afterEach(async () => api?.close());

  it('answers the Prometheus text format, every sample line well formed', async () => {
    api = await createApiHarness();
    await api.call('GET', '/health');
    const response = await api.call('GET', '/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const lines = response.text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).toMatch(SAMPLE_LINE);
    expect(response.text).toContain('# TYPE assay_http_requests_total counter');
    expect(response.text).toContain('# TYPE assay_http_request_duration_seconds histogram');
  });

  it('labels requests by route pattern, not by the ids in the path', async () => {
    api = await createApiHarness();
    await api.call('GET', '/api/v1/runs/run-one');
    await api.call('GET', '/api/v1/runs/run-two');
    await api.call('GET', '/no/such/route');
    const text = (await api.call('GET', '/metrics')).text;
    expect(sampleValue(text, 'assay_http_requests_total', { method: 'GET', route: '/api/v1/runs/:runId', status: '404' })).toBe(2);
    expect(sampleValue(text, 'assay_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(text).not.toContain('run-one');
  });

  it('counts a started run, and its status, tokens and cost once it has settled (once, however often scraped)', async () => {
    api = await createApiHarness();
    const { json } = await api.call('POST', '/api/v1/projects/shop/discover', {});
    const before = (await api.call('GET', '/metrics')).text;
    expect(sampleValue(before, 'assay_runs_started_total', {})).toBe(1);
    expect(before).not.toContain('assay_runs_finished_total{');

    const run = (await api.runtime.store.getRun(json.run_id))!;
    await api.patchRun(json.run_id, {
      status: 'completed',
      run_type: 'full',
      started_at: '2026-11-23T09:00:00.000Z',
      completed_at: '2026-11-23T09:01:30.000Z',
      telemetry: {
        ...run.telemetry,
        usage_by_phase: {
          exploration: {
            'anthropic:claude-sonnet-4-5': {
              input_tokens: 50_000,
              output_tokens: 3_000,
              cost_usd: 0.195,
              calls: 10,
              cache_read_tokens: 38_000,
              cache_write_tokens: 9_000,
            },
          },
          analysis: { 'anthropic:claude-sonnet-4-5': { input_tokens: 20_000, output_tokens: 4_000, cost_usd: 0.12, calls: 5 } },
        },
      },
    });
    await api.call('GET', '/metrics');
    const text = (await api.call('GET', '/metrics')).text;
    expect(sampleValue(text, 'assay_runs_finished_total', { status: 'completed', run_type: 'full' })).toBe(1);
    expect(
      sampleValue(text, 'assay_llm_tokens_total', { direction: 'input', phase: 'exploration', model: 'anthropic:claude-sonnet-4-5' }),
    ).toBe(50_000);
    expect(sampleValue(text, 'assay_llm_tokens_total', { direction: 'output', phase: 'analysis' })).toBe(4_000);
    expect(sampleValue(text, 'assay_llm_cost_usd_total', { phase: 'exploration' })).toBeCloseTo(0.195, 6);
    expect(sampleValue(text, 'assay_llm_cache_tokens_total', { kind: 'read', phase: 'exploration' })).toBe(38_000);
    expect(sampleValue(text, 'assay_llm_cache_tokens_total', { kind: 'write', phase: 'exploration' })).toBe(9_000);
    expect(sampleValue(text, 'assay_llm_cache_tokens_total', { kind: 'read', phase: 'analysis' })).toBe(0);
    expect(sampleValue(text, 'assay_run_duration_seconds_sum', { status: 'completed' })).toBe(90);
  });

  it('exports queue depth per queue and state when queues are given', async () => {
    api = await createApiHarness();
    const explore: QueueDepthSource = { name: 'explore', getJobCounts: async () => ({ waiting: 3, active: 1, failed: 2 }) };
    const broken: QueueDepthSource = { name: 'verify', getJobCounts: async () => Promise.reject(new Error('connection refused')) };
    const metrics = createApiMetrics({ store: api.runtime.store, queues: [explore, broken], processMetrics: false });
    await metrics.refresh();
    const text = await metrics.render();
    expect(sampleValue(text, 'assay_queue_jobs', { queue: 'explore', state: 'waiting' })).toBe(3);
    expect(sampleValue(text, 'assay_queue_jobs', { queue: 'explore', state: 'active' })).toBe(1);
    expect(sampleValue(text, 'assay_queue_jobs', { queue: 'explore', state: 'delayed' })).toBe(0);
    expect(sampleValue(text, 'assay_queue_jobs', { queue: 'verify' })).toBeUndefined();
  });
});
