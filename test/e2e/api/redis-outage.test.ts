/**
 * The API during a Redis outage, with the BullMQ launcher on a real redis-server: readiness says
 * so, starting a run answers 503 with a clear message (and the run is marked failed, so it blocks
 * nothing), and once Redis is back both recover without a restart.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBullmqLauncher } from '../../../src/fleet/bullmq/launcher.js';
import { redisServerMissing, startRedisServer, type RedisServer } from '../../integration/fleet/redis-server.js';
import { createApiHarness, type ApiHarness } from '../../unit/api/api-harness.js';

describe.skipIf(redisServerMissing)('the API while Redis is down', () => {
  let redis: RedisServer;
  let api: ApiHarness;
  let launcher: ReturnType<typeof createBullmqLauncher>;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
    port = Number(new URL(redis.url).port);
    const harness = await createApiHarness();
    launcher = createBullmqLauncher({
      store: harness.runtime.store,
      prefix: `outage-${randomBytes(4).toString('hex')}`,
      redisUrl: redis.url,
    });
    await harness.close();
    api = await createApiHarness({ api: { launcher } });
  }, 30_000);

  afterAll(async () => {
    await launcher?.close().catch(() => undefined);
    await api?.close();
    await redis?.stop();
  });

  it('reports not ready and answers 503 to new runs, then recovers when Redis returns', async () => {
    expect((await api.call('GET', '/health/ready')).json.checks.queue).toBe('ok');
    await redis.stop();

    const ready = await api.call('GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.json.checks).toMatchObject({ store: 'ok', warehouse: 'ok' });
    expect(['unreachable', 'timeout']).toContain(ready.json.checks.queue);

    const refused = await api.call('POST', '/api/v1/projects/shop/discover', {});
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/job queue \(Redis\) is unreachable/) });
    const [failed] = (await api.call('GET', '/api/v1/projects/shop/runs')).json.runs;
    expect(failed.status).toBe('failed');

    redis = await startRedisServer({ port });
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await api.call('GET', '/health/ready')).status;
    }
    expect(status).toBe(200);
    expect((await api.call('POST', '/api/v1/projects/shop/discover', {})).status).toBe(202);
  }, 60_000);
});
