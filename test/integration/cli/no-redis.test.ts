/**
 * `assay worker` and `assay api --runner bullmq` need Redis. Without one they say so in one line —
 * where they looked, why it failed, what to do — and exit 69, instead of every queue connection
 * printing its refusal (and a stack) again and again.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_MAPPING } from '../../../src/errors/index.js';
import { spawnCli } from '../../support/fleet-processes.js';

let workDir: string;
let closedPort: number;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-no-redis-'));
  // a port that was free a moment ago and has no listener now
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe.each([
  ['assay worker', ['worker']],
  ['assay api --runner bullmq', ['api', '--runner', 'bullmq', '--port', '0']],
])('when %s starts and Redis is not there', (name, args) => {
  it('prints one line saying where Redis was expected and what to do, and exits 69', async () => {
    const child = spawnCli({
      name: name.replaceAll(' ', '-'),
      args,
      env: {
        PATH: process.env.PATH ?? '',
        ASSAY_DATA_DIR: join(workDir, name.replaceAll(' ', '-')),
        REDIS_URL: `redis://127.0.0.1:${closedPort}`,
        ASSAY_WAREHOUSE: 'duckdb::memory:',
        NO_COLOR: '1',
      },
      logDir: join(workDir, 'logs'),
      launcher: true,
    });
    const exit = await child.exited;
    // a checkout edited since its build says so once, before the command's own output
    const lines = child
      .output()
      .trim()
      .split('\n')
      .filter((line) => !/^assay: (sources changed since the last build|there is no build)/.test(line));
    expect(exit.code, child.output()).toBe(ERROR_MAPPING.unavailable.exitCode);
    expect(lines).toEqual([
      `assay: [unavailable] Redis at redis://127.0.0.1:${closedPort} cannot be reached (ECONNREFUSED): start it (redis-server, or \`assay fleet up\`) or point REDIS_URL at a running one`,
    ]);
  });
});
