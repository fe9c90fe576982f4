/**
 * `assay api` end to end: the served API (local runner, offline analyst) over real HTTP on a
 * random port, on a generated demo warehouse. Create a project, start a discovery, follow its
 * progress over SSE to the end, then read the result, the report and the metrics.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/api/auth/keys.js';
import { serveApi, type ServedApi } from '../../../src/cli/commands/api.js';
import { loadConfig } from '../../../src/config/index.js';
import { silentLogger } from '../../../src/logging/index.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { expectInsightContract } from '../../support/insight-contract.js';
import { parseSseFrames, readAll } from '../../unit/api/sse.js';

/** Enough exploration for the offline analyst to find the planted patterns, small enough to stay fast. */
const MAX_STEPS = 12;

describe('assay api (local runner, offline analyst, demo warehouse)', () => {
  let dir: string;
  let served: ServedApi;
  let warehouseUrl: string;
  let key: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-api-e2e-'));
    const warehouse = await generateDemoWarehouse({ kind: 'ecommerce', out: join(dir, 'shop.duckdb') });
    warehouseUrl = `duckdb:${warehouse.path}`;
    const config = loadConfig({
      env: { ASSAY_DATA_DIR: join(dir, 'data'), ASSAY_WAREHOUSE: warehouseUrl, ASSAY_LLM: 'offline:analyst' },
      cwd: dir,
    });
    served = await serveApi(config, { port: 0, host: '127.0.0.1', runner: 'local', maxConcurrentRuns: 1 }, silentLogger);
    key = (await createApiKey(served.runtime.store, { name: 'e2e', scope: 'run' }, new Date())).key;
  }, 60_000);

  afterAll(async () => {
    await served?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const url = (path: string) => `${served.url}${path}`;
  async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(url(path), {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      body: (response.headers.get('content-type') ?? '').includes('json') ? await response.json() : await response.text(),
    };
  }

  it('over the wire: anonymous callers reach only health, a wrong key is 401, a run key cannot manage keys', async () => {
    expect((await fetch(url('/health'))).status).toBe(200);
    const anonymous = await fetch(url('/api/v1/projects'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await fetch(url('/api/v1/projects'), { headers: { Authorization: 'Bearer assay_aaaaaaaaaaaa_bad' } })).status).toBe(401);
    expect((await send('GET', '/api/v1/api-keys')).status).toBe(403);
  });

  it('runs a discovery from project creation to report, with live progress', async () => {
    expect((await send('GET', '/health/ready')).status).toBe(200);
    const project = await send('POST', '/api/v1/projects', {
      id: 'demo-shop',
      name: 'Demo shop',
      domain: 'ecommerce',
      warehouse: { url: warehouseUrl },
    });
    expect(project.status).toBe(201);

    const estimate = await send('POST', '/api/v1/projects/demo-shop/discover/estimate', { max_steps: MAX_STEPS });
    expect(estimate.body.breakdown.exploration.calls).toBe(MAX_STEPS);

    const started = await send('POST', '/api/v1/projects/demo-shop/discover', { max_steps: MAX_STEPS });
    expect(started.status).toBe(202);
    const runId: string = started.body.run_id;

    const events = await fetch(url(`/api/v1/runs/${runId}/events`), { headers: { Authorization: `Bearer ${key}` } });
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = parseSseFrames(await readAll(events.body!, 120_000));
    const progress = frames.filter((frame) => frame.event === 'progress').map((frame) => JSON.parse(frame.data!));
    expect(progress.length).toBeGreaterThan(2);
    const percentages = progress.map((event) => event.progress as number);
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    expect(progress.some((event) => event.status === 'running')).toBe(true);
    expect(frames.at(-1)).toMatchObject({ event: 'end' });
    const end = JSON.parse(frames.at(-1)!.data!);
    expect(end).toMatchObject({ run_id: runId, status: 'completed' });

    const run = await send('GET', `/api/v1/runs/${runId}`);
    expect(run.body).toMatchObject({ status: 'completed', progress: 100 });
    expect(run.body.steps_completed).toBeGreaterThan(0);

    const result = await send('GET', `/api/v1/runs/${runId}/result`);
    expect(result.status).toBe(200);
    expect(result.body.insights.length).toBeGreaterThan(0);
    // the output contract: each insight's claim and validation, in the result and in the run document
    expectInsightContract(result.body.insights, 'GET /runs/:id/result');
    expectInsightContract(
      run.body.areas.flatMap((area: { insights: unknown[] }) => area.insights),
      'GET /runs/:id areas[].insights',
    );

    const report = await send('GET', `/api/v1/runs/${runId}/report`);
    expect(report.status).toBe(200);
    expect(report.body).toContain(result.body.insights[0].name.slice(0, 20));

    const steps = await send('GET', `/api/v1/runs/${runId}/steps`);
    expect(steps.body.steps).toHaveLength(run.body.steps_completed);

    const metrics = await send('GET', '/metrics');
    expect(metrics.body).toMatch(/assay_runs_finished_total\{status="completed",run_type="(full|partial)"\} 1/);

    const insightId: string = result.body.insights[0].id;
    expect(
      (await send('POST', `/api/v1/runs/${runId}/feedback`, { target_type: 'insight', target_id: insightId, rating: 'like' })).status,
    ).toBe(200);
    expect((await send('GET', '/api/v1/projects/demo-shop/feedback')).body.feedback).toHaveLength(1);
  }, 150_000);

  it('cancels a run in flight through DELETE and reports it cancelled', async () => {
    const started = await send('POST', '/api/v1/projects/demo-shop/discover', { max_steps: 40, min_steps: 40 });
    expect(started.status).toBe(202);
    const runId: string = started.body.run_id;
    const cancelled = await send('DELETE', `/api/v1/runs/${runId}`);
    expect(cancelled.status).toBe(202);
    const frames = parseSseFrames(
      await readAll((await fetch(url(`/api/v1/runs/${runId}/events`), { headers: { Authorization: `Bearer ${key}` } })).body!, 60_000),
    );
    expect(JSON.parse(frames.at(-1)!.data!)).toMatchObject({ run_id: runId, status: 'cancelled' });
    // the runner still writes the cancelled run's result once it has stopped
    let result = await send('GET', `/api/v1/runs/${runId}/result`);
    for (let attempt = 0; result.status === 404 && attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      result = await send('GET', `/api/v1/runs/${runId}/result`);
    }
    expect(result.body.run_type).toBe('cancelled');
    expect((await send('DELETE', `/api/v1/runs/${runId}`)).status).toBe(409);
  }, 90_000);
});
