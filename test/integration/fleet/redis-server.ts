/** A throwaway redis-server for one test file: free port, temp dir, no persistence; stopped after. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import { skipForMissingServer } from '../../support/required-servers.js';

/** redis-server as found on PATH (`REDIS_SERVER` overrides it); undefined when it is not installed. */
function findOnPath(name: string): string | undefined {
  const override = process.env.REDIS_SERVER;
  if (override) return existsSync(override) ? override : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

export const REDIS_SERVER_BINARY = findOnPath('redis-server') ?? 'redis-server';
export const redisServerMissing = findOnPath('redis-server') === undefined;
/** Printed by every suite that skips for want of redis-server (under CI, importing this file fails instead). */
const REDIS_MISSING = 'redis-server is not on PATH (apt-get install -y redis-server, or set REDIS_SERVER)';
export const REDIS_SKIP_REASON = `skipping: ${REDIS_MISSING}`;
if (redisServerMissing) console.warn(`skipping: ${skipForMissingServer('redis-server', REDIS_MISSING)}`);

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPing(url: string, process: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (process.exitCode !== null) throw new Error(`redis-server exited with code ${process.exitCode}`);
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    // refused connections while the server starts are expected; connect() reports them
    client.on('error', () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
  throw new Error('redis-server did not answer PING within 10 s');
}

/** `port`: start on this one (to bring a stopped server back where its clients expect it). */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-redis-'));
  const port = options.port ?? (await freePort());
  const child = spawn(
    REDIS_SERVER_BINARY,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  await waitForPing(url, child);
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
