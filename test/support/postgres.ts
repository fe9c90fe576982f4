/**
 * A throwaway PostgreSQL cluster for integration tests: `initdb` into a temp dir (as the `postgres`
 * OS user when running as root, since PostgreSQL refuses root), `pg_ctl start` on a free port with
 * its unix socket in the same dir, one database, a superuser URL for fixtures and a read-only role
 * URL for the code under test. `stop()` shuts it down and deletes everything.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { skipForMissingServer } from './required-servers.js';

const run = promisify(execFile);

export interface TestPostgres {
  /** Superuser on the test database: create fixtures with it. */
  adminUrl: string;
  /** `assay_reader`: SELECT on the public schema, nothing else, read-only by default. */
  readerUrl: string;
  readerPassword: string;
  database: string;
  stop(): Promise<void>;
}

export type TestPostgresStart = { available: true; server: TestPostgres } | { available: false; reason: string };

const READER_ROLE = 'assay_reader';
const READER_PASSWORD = 'reader-secret-pw';
const DATABASE = 'assay_test';

function findBinDirectory(): string | undefined {
  const fromEnv = process.env.POSTGRES_BIN_DIR;
  if (fromEnv !== undefined && existsSync(path.join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((left, right) => Number(right) - Number(left));
  for (const version of versions) {
    const candidate = path.join(root, version, 'bin');
    if (existsSync(path.join(candidate, 'initdb')) && existsSync(path.join(candidate, 'pg_ctl'))) return candidate;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
async function runPostgresBinary(binary: string, args: string[]): Promise<void> {
  if (runningAsRoot) await run('runuser', ['-u', 'postgres', '--', binary, ...args]);
  else await run(binary, args);
}

export async function startTestPostgres(): Promise<TestPostgresStart> {
  const binDirectory = findBinDirectory();
  if (binDirectory === undefined)
    return {
      available: false,
      reason: skipForMissingServer(
        'PostgreSQL',
        'no PostgreSQL binaries (initdb, pg_ctl) found under /usr/lib/postgresql or $POSTGRES_BIN_DIR; apt-get install -y postgresql',
      ),
    };
  const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-pg-'));
  const dataDirectory = path.join(directory, 'data');
  if (runningAsRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(directory, Number(stdout.trim()), Number(group.trim()));
    chmodSync(directory, 0o700);
  }
  const pgCtl = path.join(binDirectory, 'pg_ctl');
  const port = await freePort();
  let started = false;
  const stop = async () => {
    if (started) await runPostgresBinary(pgCtl, ['-D', dataDirectory, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    started = false;
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await runPostgresBinary(path.join(binDirectory, 'initdb'), [
      '-D',
      dataDirectory,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--locale=C',
    ]);
    // test-only durability settings: nothing here needs to survive a crash
    const serverOptions = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    await runPostgresBinary(pgCtl, [
      '-D',
      dataDirectory,
      '-l',
      path.join(directory, 'server.log'),
      '-o',
      serverOptions,
      '-w',
      '-t',
      '30',
      'start',
    ]);
    started = true;
    const admin = new pg.Client({ host: directory, port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    await admin.query(`CREATE ROLE ${READER_ROLE} LOGIN PASSWORD '${READER_PASSWORD}'`);
    await admin.query(`ALTER ROLE ${READER_ROLE} SET default_transaction_read_only = on`);
    await admin.end();
    const onDatabase = new pg.Client({ host: directory, port, user: 'postgres', database: DATABASE });
    await onDatabase.connect();
    await onDatabase.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    await onDatabase.query(`GRANT USAGE ON SCHEMA public TO ${READER_ROLE}`);
    await onDatabase.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO ${READER_ROLE}`);
    await onDatabase.end();
    return {
      available: true,
      server: {
        adminUrl: `postgres://postgres@127.0.0.1:${port}/${DATABASE}`,
        readerUrl: `postgres://${READER_ROLE}:${READER_PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
        readerPassword: READER_PASSWORD,
        database: DATABASE,
        stop,
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
