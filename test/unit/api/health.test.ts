import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/api/index.js';
import { WarehouseError } from '../../../src/errors/index.js';
import { silentLogger } from '../../../src/logging/index.js';
import { createApiHarness, type ApiHarness } from './api-harness.js';

describe('health and error handling', () => {
  let api: ApiHarness;
  afterEach(async () => api.close());

  it('answers liveness, and readiness when the store and the warehouse answer', async () => {
    api = await createApiHarness();
    expect((await api.call('GET', '/health')).json).toEqual({ status: 'ok' });
    const ready = await api.call('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready', checks: { store: 'ok', warehouse: 'ok' } });
  });

  describe('when the warehouse cannot be reached', () => {
    it('answers 503 naming the failed check, without the error text', async () => {
      api = await createApiHarness();
      const warehouse = {
        ...api.runtime.warehouse,
        query: async () => Promise.reject(new WarehouseError('connect ECONNREFUSED 10.1.2.3:5432 user=analyst')),
      };
      const app = createApi({
        runtime: { ...api.runtime, warehouse },
        launcher: api.launcher,
        config: api.runtime.config,
        logger: silentLogger,
      });
      const response = await app.request('/health/ready');
      expect(response.status).toBe(503);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ status: 'not_ready', checks: { store: 'ok', warehouse: 'unreachable' } });
      expect(text).not.toMatch(/10\.1\.2\.3|analyst/);
    });
  });

  it('answers 404 in the error format for an unknown route', async () => {
    api = await createApiHarness();
    const response = await api.call('GET', '/api/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: { code: 'not_found', message: 'no route for GET /api/v1/nothing-here' } });
  });

  it('refuses a body over the size limit with 413 before parsing it', async () => {
    api = await createApiHarness();
    const response = await api.call(
      'POST',
      '/api/v1/projects',
      JSON.stringify({ name: 'x', domain: 'ecommerce', description: 'y'.repeat(api.runtime.config.api.maxBodyBytes) }),
    );
    expect(response.status).toBe(413);
    expect(response.json.error.code).toBe('too_large');
    expect(response.json.error.message).toMatch(/larger than/);
  });
});
