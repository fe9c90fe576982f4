/**
 * `assay fleet up` starts redis-server and a throwaway PostgreSQL from the OS packages, `fleet env`
 * prints settings a shell can eval, the store they name is usable, and `fleet down` stops both and
 * deletes their data. Skipped, with the reason, where the packages are not installed.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../../../src/store/index.js';
import { redisServerMissing } from '../fleet/redis-server.js';
import { skipForMissingServer } from '../../support/required-servers.js';
import { runCli } from '../../support/run-cli.js';

const postgresMissing = !existsSync('/usr/lib/postgresql') && !process.env.POSTGRES_BIN_DIR;
if (postgresMissing) skipForMissingServer('PostgreSQL', 'no /usr/lib/postgresql and no $POSTGRES_BIN_DIR; apt-get install -y postgresql');
const missing = [redisServerMissing ? 'redis-server' : '', postgresMissing ? 'PostgreSQL' : ''].filter(Boolean);
if (missing.length > 0)
  console.info(`skipping assay fleet up: ${missing.join(' and ')} not installed (apt-get install -y redis-server postgresql)`);

describe.skipIf(missing.length > 0)('when assay fleet up starts the local fleet services', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'assay-fleet-up-'));
  // as a project directory is: PostgreSQL runs as its own user and must reach its data below it
  chmodSync(dataDir, 0o755);
  afterAll(async () => {
    await runCli(['fleet', 'down']);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts both, prints settings a shell can eval, and the store and queue they name answer', async () => {
    process.env.ASSAY_DATA_DIR = dataDir;
    try {
      const up = await runCli(['fleet', 'up', '--redis-port', '0', '--postgres-port', '0']);
      expect(up.code, up.stderr).toBe(0);
      expect(up.stdout).toMatch(/^started redis-server and postgres:/);
      const env = await runCli(['fleet', 'env']);
      const store = /^export ASSAY_STORE=(postgres:\/\/assay@127\.0\.0\.1:\d+\/assay)$/m.exec(env.stdout)?.[1];
      const redisUrl = /^export REDIS_URL=(redis:\/\/127\.0\.0\.1:\d+)$/m.exec(env.stdout)?.[1];
      expect(store).toBeDefined();
      expect(redisUrl).toBeDefined();
      const runStore = await openRunStore(store!, { dataDir });
      expect(await runStore.listProjects()).toEqual([]);
      await runStore.close();
      const redis = new Redis(redisUrl!);
      expect(await redis.ping()).toBe('PONG');
      await redis.quit();

      const again = await runCli(['fleet', 'up']);
      expect(again.stdout).toMatch(/^already running:/);

      const down = await runCli(['fleet', 'down']);
      expect(down.stdout).toBe('stopped postgres and redis-server; their data is deleted\n');
      expect(existsSync(join(dataDir, 'fleet'))).toBe(false);
      expect((await runCli(['fleet', 'env'])).code).toBe(6);
    } finally {
      delete process.env.ASSAY_DATA_DIR;
    }
  }, 90_000);
});
