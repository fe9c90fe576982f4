/**
 * A throwaway MariaDB (or MySQL) server for integration tests: `mariadb-install-db` into a temp dir,
 * `mariadbd` on a free port with its socket in the same dir, one database, an admin URL for fixtures
 * and the URL of a reader that has SELECT and SHOW VIEW on that database and nothing else (no FILE).
 * `stop()` shuts it down and deletes everything. Without the binaries it reports why, for a skip.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { skipForMissingServer } from './required-servers.js';

const run = promisify(execFile);

export interface TestMariadb {
  /** `assay_admin`: every privilege, on the test database; create fixtures with it. */
  adminUrl: string;
  /** `assay_reader`: SELECT and SHOW VIEW on the test database only. */
  readerUrl: string;
  database: string;
  version: string;
  /** A directory the server may write files into (secure_file_priv): the attack tests check it stays empty. */
  fileDirectory: string;
  stop(): Promise<void>;
}

export type TestMariadbStart = { available: true; server: TestMariadb } | { available: false; reason: string };

const DATABASE = 'assay_test';
const READER = 'assay_reader';
const READER_PASSWORD = 'reader-secret-pw';
const ADMIN = 'assay_admin';
const ADMIN_PASSWORD = 'admin-secret-pw';

function findBinary(names: readonly string[]): string | undefined {
  for (const directory of ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin']) {
    for (const name of names) if (existsSync(path.join(directory, name))) return path.join(directory, name);
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

/** Resolves once the server accepts connections on its socket, rejects when it exits first or after `timeoutMs`. */
async function waitForServer(socket: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error('mariadbd exited during start-up');
    try {
      const connection = await mysql.createConnection({ socketPath: socket, user: 'root' });
      await connection.end();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`mariadbd did not accept connections within ${timeoutMs} ms`, { cause: error });
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

/** `database`: the test database's name (a plain identifier), `assay_test` unless given. */
export async function startTestMariadb(options: { database?: string } = {}): Promise<TestMariadbStart> {
  const database = options.database ?? DATABASE;
  if (!/^[a-z_][a-z0-9_]*$/.test(database))
    throw new Error(`the test database name must be a plain identifier, got ${JSON.stringify(database)}`);
  const server = findBinary(['mariadbd', 'mysqld']);
  const installer = findBinary(['mariadb-install-db', 'mysql_install_db']);
  if (server === undefined || installer === undefined)
    return {
      available: false,
      reason: skipForMissingServer('MariaDB', 'no MariaDB binaries (mariadbd, mariadb-install-db); apt-get install -y mariadb-server'),
    };
  const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-mariadb-'));
  const dataDirectory = path.join(directory, 'data');
  const fileDirectory = path.join(directory, 'files');
  const socket = path.join(directory, 'mariadb.sock');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((done) => child?.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await run(installer, [
      '--no-defaults',
      `--datadir=${dataDirectory}`,
      ...(asRoot ? ['--user=root'] : []),
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
    ]);
    const port = await freePort();
    // secure_file_priv must name an existing directory, or the server will not start
    await mkdir(fileDirectory, { recursive: true });
    child = spawn(
      server,
      [
        '--no-defaults',
        `--datadir=${dataDirectory}`,
        ...(asRoot ? ['--user=root'] : []),
        `--socket=${socket}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--pid-file=${path.join(directory, 'mariadbd.pid')}`,
        `--secure-file-priv=${fileDirectory}`,
        '--skip-log-bin',
        '--innodb-buffer-pool-size=64M',
        '--innodb-flush-log-at-trx-commit=0',
        '--skip-name-resolve',
      ],
      { stdio: 'ignore' },
    );
    process.once('exit', () => child?.kill('SIGKILL'));
    await waitForServer(socket, child, 30_000);
    const root = await mysql.createConnection({ socketPath: socket, user: 'root' });
    const [versionRows] = await root.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
    for (const statement of [
      `CREATE DATABASE ${database}`,
      `CREATE USER '${ADMIN}'@'127.0.0.1' IDENTIFIED BY '${ADMIN_PASSWORD}'`,
      `GRANT ALL PRIVILEGES ON ${database}.* TO '${ADMIN}'@'127.0.0.1'`,
      `CREATE USER '${READER}'@'127.0.0.1' IDENTIFIED BY '${READER_PASSWORD}'`,
      `GRANT SELECT, SHOW VIEW ON ${database}.* TO '${READER}'@'127.0.0.1'`,
    ])
      await root.query(statement);
    await root.end();
    return {
      available: true,
      server: {
        adminUrl: `mysql://${ADMIN}:${ADMIN_PASSWORD}@127.0.0.1:${port}/${database}`,
        readerUrl: `mysql://${READER}:${READER_PASSWORD}@127.0.0.1:${port}/${database}`,
        database,
        version: String(versionRows[0]?.v ?? ''),
        fileDirectory,
        stop,
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
