/** Bull Board and queue-depth metrics on the API, against a real redis-server with real BullMQ queues. */
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisServerMissing, startRedisServer, type RedisServer } from '../../integration/fleet/redis-server.js';
import { createApiHarness, type ApiHarness } from '../../unit/api/api-harness.js';

describe.skipIf(redisServerMissing)('Bull Board at /admin/queues', () => {
  let redis: RedisServer;
  let queues: Queue[];
  let api: ApiHarness;

  beforeAll(async () => {
    redis = await startRedisServer();
    const prefix = `assay-test-${randomBytes(4).toString('hex')}`;
    const connection = { url: redis.url };
    queues = ['explore', 'verify'].map((name) => new Queue(name, { connection, prefix }));
    api = await createApiHarness({ api: { queues } });
  }, 30_000);

  afterAll(async () => {
    await Promise.all(
      (queues ?? []).map(async (queue) => {
        await queue.obliterate({ force: true });
        await queue.close();
      }),
    );
    await api?.close();
    await redis?.stop();
  });

  it('serves the dashboard page and lists the queues read-only', async () => {
    const page = await api.call('GET', '/admin/queues');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('Assay queues');
    const asset = /src="(static\/js\/[^"]+)"/.exec(page.text)?.[1];
    expect(asset).toBeDefined();
    const auth = { headers: { Authorization: `Bearer ${api.adminKey}` } };
    const script = await api.app.request(`/admin/queues/${asset}`, auth);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    const slashed = await api.app.request('/admin/queues/', auth);
    expect(slashed.status).toBe(302);
    expect(slashed.headers.get('location')).toBe('/admin/queues');

    const listing = await api.call('GET', '/admin/queues/api/queues');
    expect(listing.status).toBe(200);
    const listed = listing.json.queues as Array<{ name: string; readOnlyMode: boolean }>;
    expect(listed.map((queue) => queue.name).sort()).toEqual(['explore', 'verify']);
    expect(listed.every((queue) => queue.readOnlyMode)).toBe(true);
  });

  it('needs an admin key: anonymous callers get the login form or 401, a browser signs in with the form', async () => {
    expect((await api.call('GET', '/admin/queues/api/queues', undefined, { key: null })).status).toBe(401);
    expect((await api.call('GET', '/admin/queues/api/queues', undefined, { key: await api.createKey('read') })).status).toBe(401);
    const form = await api.call('GET', '/admin/queues', undefined, { key: null, headers: { Accept: 'text/html' } });
    expect(form.status).toBe(401);
    expect(form.text).toContain('/admin/queues/login');
    const login = await api.app.request('/admin/queues/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: api.adminKey }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const listing = await api.call('GET', '/admin/queues/api/queues', undefined, { key: null, headers: { Cookie: cookie } });
    expect(listing.status).toBe(200);
    expect(listing.text).toContain('"explore"');
  });

  it('exports the depth of each queue on /metrics', async () => {
    await queues[0]!.add('step', { runId: 'run-x', step: 1 });
    await queues[0]!.add('step', { runId: 'run-x', step: 2 });
    const text = (await api.call('GET', '/metrics')).text;
    expect(text).toContain('assay_queue_jobs{queue="explore",state="waiting"} 2');
    expect(text).toContain('assay_queue_jobs{queue="verify",state="waiting"} 0');
  });

  it('is listed in the OpenAPI description', async () => {
    expect((await api.call('GET', '/openapi.json')).json.info.description).toContain('/admin/queues');
  });
});
