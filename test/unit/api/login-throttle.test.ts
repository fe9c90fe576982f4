import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { blockSecondsAfter, createMemoryAuthThrottle, FREE_FAILURES, MAX_BLOCK_SECONDS } from '../../../src/api/auth/login-throttle.js';
import { createApiHarness, type ApiHarness } from './api-harness.js';

let api: ApiHarness | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A request as if from `address` (the node server hands Hono the socket; in-process requests have none). */
function from(harness: ApiHarness, address: string, key: string, path = '/api/v1/projects') {
  return harness.app.request(path, { headers: { authorization: `Bearer ${key}` } }, { incoming: { socket: { remoteAddress: address } } });
}

function wrongSecretFor(key: string): string {
  return `${key.slice(0, key.lastIndexOf('_') + 1)}${'x'.repeat(43)}`;
}

describe('the back-off after failed logins', () => {
  it(`lets ${FREE_FAILURES} failures pass, then doubles from 1 s up to ${MAX_BLOCK_SECONDS} s`, () => {
    expect(blockSecondsAfter(FREE_FAILURES)).toBeUndefined();
    expect([6, 7, 8, 9, 10].map(blockSecondsAfter)).toEqual([1, 2, 4, 8, 16]);
    expect(blockSecondsAfter(40)).toBe(MAX_BLOCK_SECONDS);
  });

  it('grows with every further failure recorded on the same counter', async () => {
    const throttle = createMemoryAuthThrottle();
    const attempt = { clientAddress: '203.0.113.9', keyId: 'abcdefghijkl' };
    const blocks: Array<number | undefined> = [];
    for (let failure = 0; failure < 9; failure++) blocks.push((await throttle.recordFailure(attempt)).blockedForSeconds);
    expect(blocks).toEqual([undefined, undefined, undefined, undefined, undefined, 1, 2, 4, 8]);
    expect((await throttle.check(attempt)).retryAfterSeconds).toBeGreaterThanOrEqual(7);
  });
});

describe('when one client sends 300 wrong secrets for a valid key id', () => {
  it('answers 401 to the first few, then 429 with Retry-After; logs a warning and counts every failure; the right key from another client still works', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    api = await createApiHarness({ api: { logger } });
    const attacker = '198.51.100.7';
    const wrong = wrongSecretFor(api.adminKey);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let attempt = 0; attempt < 300; attempt++) {
      const response = await from(api, attacker, wrong);
      statuses.push(response.status);
      if (response.status === 429 && retryAfter === null) {
        retryAfter = response.headers.get('retry-after');
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      }
    }
    expect(statuses.slice(0, FREE_FAILURES + 1)).toEqual(Array(FREE_FAILURES + 1).fill(401));
    expect(statuses.slice(FREE_FAILURES + 1).every((status) => status === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // the attacker's address is blocked even with the right key
    expect((await from(api, attacker, api.adminKey)).status).toBe(429);
    // another client with the right key is not locked out
    const metrics = await from(api, '192.0.2.20', api.adminKey, '/metrics');
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toContain(`assay_api_auth_failures_total{outcome="rejected"} ${FREE_FAILURES + 1}`);
    expect(text).toContain(`assay_api_auth_failures_total{outcome="throttled"} ${300 - FREE_FAILURES - 1 + 1}`);
    const warnings = lines.map((line) => JSON.parse(line)).filter((line) => /throttling this client/.test(line.msg));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatchObject({ clientAddress: attacker, keyId: api.adminKey.split('_')[1], failures: FREE_FAILURES + 1 });
    // the secret is base64url and may itself hold '_': it is everything after `assay_<id>_`
    const secret = api.adminKey.slice(`assay_${api.adminKey.split('_')[1]}_`.length);
    expect(secret.length).toBeGreaterThan(20);
    expect(lines.join('\n')).not.toContain(secret);
  });
});

describe('when many clients each try one wrong secret for the same key id', () => {
  it('blocks the key id for those clients only: a client that never failed gets in with the right key', async () => {
    api = await createApiHarness();
    const wrong = wrongSecretFor(api.adminKey);
    for (let client = 1; client <= FREE_FAILURES + 1; client++) expect((await from(api, `198.51.100.${client}`, wrong)).status).toBe(401);
    // the key id is now blocked for the clients that failed on it, even with the right secret …
    expect((await from(api, '198.51.100.1', api.adminKey)).status).toBe(429);
    // … and a wrong secret from a new client is refused once, then blocked
    expect((await from(api, '198.51.100.50', wrong)).status).toBe(401);
    expect((await from(api, '198.51.100.50', wrong)).status).toBe(429);
    // a client that never failed is let in
    expect((await from(api, '192.0.2.30', api.adminKey)).status).toBe(200);
  });
});
