/**
 * Failed logins counted in Redis are seen by every API replica: two APIs over one real redis-server
 * (as with `assay api --runner bullmq`), one client failing on the first is throttled by the second.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRedisAuthThrottle } from '../../../src/api/index.js';
import { FREE_FAILURES } from '../../../src/api/auth/login-throttle.js';
import { openProducerConnection } from '../../../src/fleet/bullmq/connection.js';
import { createApiHarness } from '../../unit/api/api-harness.js';
import { useRedisServer } from '../fleet/redis-lifecycle.js';
import { REDIS_SKIP_REASON, redisServerMissing } from '../fleet/redis-server.js';

const redis = useRedisServer();
if (redisServerMissing) console.log(REDIS_SKIP_REASON);

describe.skipIf(redisServerMissing)('when the API runs as several replicas with the fleet', () => {
  it('throttles on one replica a client that failed on another, and lets a clean client in on both', async () => {
    const connection = openProducerConnection(redis.url);
    const prefix = `test-${randomBytes(4).toString('hex')}`;
    const first = await createApiHarness({ api: { authThrottle: createRedisAuthThrottle(connection, prefix) } });
    const second = await createApiHarness({ api: { authThrottle: createRedisAuthThrottle(connection, prefix) } });
    try {
      const request = (app: typeof first.app, address: string, key: string) =>
        app.request(
          '/api/v1/projects',
          { headers: { authorization: `Bearer ${key}` } },
          { incoming: { socket: { remoteAddress: address } } },
        );
      const wrong = `${first.adminKey.slice(0, first.adminKey.lastIndexOf('_') + 1)}${'y'.repeat(43)}`;
      for (let attempt = 0; attempt <= FREE_FAILURES; attempt++) expect((await request(first.app, '198.51.100.9', wrong)).status).toBe(401);
      const throttled = await request(second.app, '198.51.100.9', wrong);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await request(second.app, '192.0.2.40', second.adminKey)).status).toBe(200);
      expect(await connection.keys(`${prefix}:assay-auth-*`)).not.toEqual([]);
    } finally {
      await first.close();
      await second.close();
      await connection.quit();
    }
  });
});
