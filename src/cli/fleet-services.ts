/**
 * `assay fleet up|env|down`: the two servers a local fleet needs — redis-server for the queues and a
 * throwaway PostgreSQL cluster for the shared run store — started from the binaries the OS package
 * manager installs, with their data under `<dataDir>/fleet/`, on free ports, in the background. What
 * they are (ports, pids) is kept in `<dataDir>/fleet/services.json`, so `env` can print the settings
 * and `down` can stop them and delete their data. Nothing here is for production: PostgreSQL trusts
 * local connections and neither server keeps data beyond `down`.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { ConfigError, NotFoundError, UnavailableError, describeError } from '../errors/index.js';
import { isPidAlive } from '../fleet/local/run-lease.js';

const run = promisify(execFile);

const servicesSchema = z.object({
  redis: z.object({ port: z.number().int(), pid: z.number().int() }),
  postgres: z.object({ port: z.number().int(), bin: z.string(), data: z.string(), socket: z.string() }),
});
type Services = z.infer<typeof servicesSchema>;

const DATABASE = 'assay';
const USER = 'assay';
/** Ports people expect; another free port is taken when these are busy. */
const PREFERRED_PORTS = { redis: 6379, postgres: 5432 } as const;

function fleetDir(dataDir: string): string {
  return resolve(dataDir, 'fleet');
}

function stateFile(dataDir: string): string {
  return join(fleetDir(dataDir), 'services.json');
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

/** The newest PostgreSQL whose initdb and pg_ctl are installed (Debian keeps them off PATH). */
function postgresBinDir(): string | undefined {
  const fromPath = onPath('pg_ctl');
  if (fromPath && onPath('initdb')) return resolve(fromPath, '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  for (const version of readdirSync(root).sort((left, right) => Number(right) - Number(left))) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** `wanted` when given (0: any free port), else the usual port when it is free, else any free port. */
async function choosePort(preferred: number, wanted?: number): Promise<number> {
  if (wanted !== undefined && wanted !== 0) {
    if (!(await portIsFree(wanted))) throw new ConfigError(`port ${wanted} is in use: choose another, or 0 for any free port`);
    return wanted;
  }
  if (wanted === undefined && (await portIsFree(preferred))) return preferred;
  return new Promise((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : reject(new Error('no free port'))));
    });
  });
}

const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** PostgreSQL refuses to run as root: as root, its binaries run as the `postgres` user the package creates. */
async function runPostgres(binary: string, args: string[]): Promise<void> {
  try {
    if (runningAsRoot) await run('runuser', ['-u', 'postgres', '--', binary, ...args]);
    else await run(binary, args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new UnavailableError(`${binary.split('/').at(-1)} failed: ${stderr || describeError(error)}`, { cause: error });
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new UnavailableError(`${what} did not come up within ${timeoutMs / 1000} s`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

export interface FleetPorts {
  redis?: number | undefined;
  postgres?: number | undefined;
}

async function startRedis(dir: string, wantedPort: number | undefined): Promise<Services['redis']> {
  const binary = onPath('redis-server');
  if (!binary)
    throw new ConfigError(
      'redis-server is not installed: install it (Debian/Ubuntu: apt-get install -y redis-server) and run `assay fleet up` again',
    );
  const port = await choosePort(PREFERRED_PORTS.redis, wantedPort);
  await mkdir(dir, { recursive: true });
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--logfile', join(dir, 'redis.log')],
    { detached: true, stdio: 'ignore' },
  );
  child.unref();
  if (child.pid === undefined) throw new UnavailableError('redis-server could not be started');
  const pid = child.pid;
  const { Redis } = await import('ioredis');
  await waitFor(`redis-server on port ${port}`, async () => {
    if (!isPidAlive(pid)) throw new UnavailableError(`redis-server exited at start: see ${join(dir, 'redis.log')}`);
    const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  });
  return { port, pid };
}

async function startPostgres(dir: string, wantedPort: number | undefined): Promise<Services['postgres']> {
  const bin = postgresBinDir();
  if (!bin)
    throw new ConfigError(
      'PostgreSQL is not installed (no initdb and pg_ctl on PATH or under /usr/lib/postgresql): install it (Debian/Ubuntu: apt-get install -y postgresql) and run `assay fleet up` again',
    );
  const port = await choosePort(PREFERRED_PORTS.postgres, wantedPort);
  const data = join(dir, 'data');
  await mkdir(dir, { recursive: true });
  if (runningAsRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
    const reachable = await run('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]).then(
      () => true,
      () => false,
    );
    if (!reachable)
      throw new ConfigError(
        `PostgreSQL runs as the postgres user (it refuses root), which cannot reach ${dir}: a directory above it is private. Choose a data directory it can reach (ASSAY_DATA_DIR) or open up the parent (chmod o+x)`,
      );
  }
  if (!existsSync(join(data, 'PG_VERSION')))
    await runPostgres(join(bin, 'initdb'), ['-D', data, '-U', USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  await runPostgres(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    '-w',
    '-t',
    '30',
    'start',
  ]);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, database: 'postgres' });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE} OWNER ${USER}`);
  } finally {
    await client.end();
  }
  return { port, bin, data, socket: dir };
}

export interface FleetSettings {
  store: string;
  redisUrl: string;
}

function settingsOf(services: Services): FleetSettings {
  return {
    store: `postgres://${USER}@127.0.0.1:${services.postgres.port}/${DATABASE}`,
    redisUrl: `redis://127.0.0.1:${services.redis.port}`,
  };
}

/** `export` lines for a POSIX shell: `eval "$(assay fleet env)"`. */
export function exportLines(settings: FleetSettings): string {
  return `export ASSAY_STORE=${settings.store}\nexport REDIS_URL=${settings.redisUrl}\n`;
}

async function readServices(dataDir: string): Promise<Services | undefined> {
  try {
    return servicesSchema.parse(JSON.parse(await readFile(stateFile(dataDir), 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(
      `${stateFile(dataDir)} is not a services file written by \`assay fleet up\` (${describeError(error)}): run \`assay fleet down\` to start over`,
    );
  }
}

async function postgresRunning(services: Services): Promise<boolean> {
  return runPostgres(join(services.postgres.bin, 'pg_ctl'), ['-D', services.postgres.data, 'status']).then(
    () => true,
    () => false,
  );
}

/** Starts what is not running yet; returns the settings and whether anything was started. */
export async function fleetUp(
  dataDir: string,
  ports: FleetPorts = {},
): Promise<{ settings: FleetSettings; started: string[]; services: Services }> {
  const dir = fleetDir(dataDir);
  const existing = await readServices(dataDir);
  if (existing && isPidAlive(existing.redis.pid) && (await postgresRunning(existing)))
    return { settings: settingsOf(existing), started: [], services: existing };
  // a half-running set from before is stopped first: ports and data are chosen again
  if (existing) await fleetDown(dataDir);
  const started: string[] = [];
  const redis = await startRedis(join(dir, 'redis'), ports.redis);
  started.push('redis-server');
  try {
    const postgres = await startPostgres(join(dir, 'postgres'), ports.postgres);
    started.push('postgres');
    const services: Services = { redis, postgres };
    await writeFile(stateFile(dataDir), `${JSON.stringify(services, null, 2)}\n`);
    return { settings: settingsOf(services), started, services };
  } catch (error) {
    process.kill(redis.pid, 'SIGTERM');
    throw error;
  }
}

export async function fleetEnv(dataDir: string): Promise<FleetSettings> {
  const services = await readServices(dataDir);
  if (!services) throw new NotFoundError(`no local fleet services in ${fleetDir(dataDir)}: start them with \`assay fleet up\``);
  return settingsOf(services);
}

/** Stops both servers (whatever is still running) and deletes their data. */
export async function fleetDown(dataDir: string): Promise<string[]> {
  const services = await readServices(dataDir);
  const stopped: string[] = [];
  if (services) {
    if (await postgresRunning(services)) {
      await runPostgres(join(services.postgres.bin, 'pg_ctl'), ['-D', services.postgres.data, '-m', 'fast', '-w', 'stop']);
      stopped.push('postgres');
    }
    if (isPidAlive(services.redis.pid)) {
      process.kill(services.redis.pid, 'SIGTERM');
      const pid = services.redis.pid;
      await waitFor('redis-server to stop', async () => !isPidAlive(pid), 10_000);
      stopped.push('redis-server');
    }
  }
  await rm(fleetDir(dataDir), { recursive: true, force: true });
  return stopped;
}
