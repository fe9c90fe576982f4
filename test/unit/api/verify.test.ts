/**
 * POST /api/v1/projects/:id/verify on the harness shop (600 sessions: desktop when id % 3 = 0; reached
 * checkout when even; ordered when it reached checkout and id % 3 = 0 or id % 5 = 0): a verdict per
 * claim in order, 400 with the field path, 404 for a project the key cannot see, and scope `run`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, issuePaths, type ApiHarness } from './api-harness.js';

/** Among sessions that reached checkout, desktop ones (100) all ordered; the 200 mobile ones ordered when id % 5 = 0 (40). */
const orderRate = (overrides: Record<string, unknown> = {}) => ({
  kind: 'difference',
  metric: {
    kind: 'rate',
    table: 'main.sessions',
    condition: { column: 'ordered', op: '=', value: true },
    filters: [{ column: 'reached_checkout', op: '=', value: true }],
    label: 'order rate at checkout',
  },
  segment: { column: 'device', value: 'desktop' },
  comparison: { kind: 'rest' },
  value: 1,
  comparison_value: 0.2,
  direction: 'higher',
  noun: 'sessions',
  ...overrides,
});

describe('POST /api/v1/projects/:id/verify', () => {
  let api: ApiHarness;
  beforeEach(async () => {
    api = await createApiHarness();
  });
  afterEach(async () => api.close());

  it('confirms a true claim with both values recounted, the test, n and the SQL', async () => {
    const response = await api.call('POST', '/api/v1/projects/shop/verify', orderRate());
    expect(response.status).toBe(200);
    expect(response.json.verdicts).toHaveLength(1);
    const [verdict] = response.json.verdicts;
    expect(verdict).toMatchObject({
      status: 'confirmed',
      recount: { value: 1, n: 100, comparison_n: 200, test: { name: 'two_proportion_z' } },
      claim: { kind: 'difference', metric: { kind: 'rate' } },
    });
    expect(verdict.recount.comparison_value).toBeCloseTo(0.2, 12);
    expect(verdict.recount.p_value).toBeLessThan(1e-10);
    expect(verdict.sql).toContain('"reached_checkout" = TRUE');
  });

  it('answers a list in order: confirmed, adjusted with its restatement, rejected', async () => {
    const response = await api.call('POST', '/api/v1/projects/shop/verify', {
      claims: [orderRate(), orderRate({ comparison_value: 0.05 }), orderRate({ value: 0.2, comparison_value: 1, direction: 'lower' })],
    });
    expect(response.status).toBe(200);
    expect(response.json.verdicts.map((verdict: { status: string }) => verdict.status)).toEqual(['confirmed', 'adjusted', 'rejected']);
    const adjusted = response.json.verdicts[1];
    expect(adjusted.restated.claim.comparison_value).toBeCloseTo(0.2, 12);
    expect(adjusted.restated.title).toContain('100% vs 20.0%');
    expect(response.json.verdicts[2].reasoning).toContain('the direction does not hold');
  });

  it('answers 400 naming every offending field, for one claim and within a list', async () => {
    const one = await api.call('POST', '/api/v1/projects/shop/verify', orderRate({ direction: 'up', value: 'high' }));
    expect(one.status).toBe(400);
    expect(issuePaths(one.json)).toEqual(['direction', 'value']);
    const list = await api.call('POST', '/api/v1/projects/shop/verify', {
      claims: [orderRate(), { kind: 'trend', metric: { kind: 'count' } }],
    });
    expect(list.status).toBe(400);
    expect(issuePaths(list.json)).toEqual(['claims.1.comparison_value', 'claims.1.direction', 'claims.1.metric.table', 'claims.1.value']);
    expect(list.json.error.message).toContain('docs/claims.md');
  });

  it('refuses more than 50 claims, an empty list and a body that is not JSON', async () => {
    const many = await api.call('POST', '/api/v1/projects/shop/verify', { claims: Array.from({ length: 51 }, () => orderRate()) });
    expect(many.status).toBe(400);
    expect(many.json.error.message).toContain('at most 50');
    expect((await api.call('POST', '/api/v1/projects/shop/verify', { claims: [] })).status).toBe(400);
    expect((await api.call('POST', '/api/v1/projects/shop/verify', '{"kind": ')).status).toBe(400);
  });

  it('rejects a claim on a table the warehouse lacks, with the reason, as a verdict', async () => {
    const response = await api.call('POST', '/api/v1/projects/shop/verify', orderRate({ metric: { kind: 'count', table: 'main.visits' } }));
    expect(response.status).toBe(200);
    expect(response.json.verdicts[0]).toMatchObject({ status: 'rejected', recount: null, sql: '' });
    expect(response.json.verdicts[0].reasoning).toContain('table "main.visits" is not in the warehouse schema');
  });

  it('answers 404 for a project that does not exist or that the key cannot see', async () => {
    expect((await api.call('POST', '/api/v1/projects/nope/verify', orderRate())).status).toBe(404);
    await api.call('POST', '/api/v1/projects', { id: 'other', name: 'Other', domain: 'ecommerce' });
    const bound = await api.createKey('run', 'other');
    expect((await api.call('POST', '/api/v1/projects/shop/verify', orderRate(), { key: bound })).status).toBe(404);
  });

  it('needs a key of scope run', async () => {
    const read = await api.createKey('read');
    const refused = await api.call('POST', '/api/v1/projects/shop/verify', orderRate(), { key: read });
    expect(refused.status).toBe(403);
    expect(refused.json.error.message).toContain('"run"');
    expect((await api.call('POST', '/api/v1/projects/shop/verify', orderRate(), { key: null })).status).toBe(401);
    expect((await api.call('POST', '/api/v1/projects/shop/verify', orderRate(), { key: await api.createKey('run') })).status).toBe(200);
  });

  it('is in the OpenAPI document with its body and its verdicts', async () => {
    const document = (await api.call('GET', '/openapi.json')).json;
    const operation = document.paths['/api/v1/projects/{id}/verify'].post;
    expect(operation['x-required-scope']).toBe('run');
    expect(operation.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/VerifyBody');
    expect(document.components.schemas.Verdicts.properties.verdicts.items.properties.status.enum).toEqual([
      'confirmed',
      'adjusted',
      'rejected',
      'unverified',
      'error',
    ]);
  });
});
