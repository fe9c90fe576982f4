/** One redis-server per test file and one fleet per test, torn down after; a printed reason when redis-server is missing. */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Fleet } from './fleet-harness.js';
import { redisServerMissing, startRedisServer, type RedisServer } from './redis-server.js';

export function useRedisServer(): { readonly url: string; track(fleet: Fleet): Fleet } {
  let server: RedisServer | undefined;
  let fleets: Fleet[] = [];
  beforeAll(async () => {
    if (!redisServerMissing) server = await startRedisServer();
  });
  afterEach(async () => {
    const closing = fleets;
    fleets = [];
    for (const fleet of closing) await fleet.close();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get url() {
      if (!server) throw new Error('redis-server is not running');
      return server.url;
    },
    track(fleet) {
      fleets.push(fleet);
      return fleet;
    },
  };
}
