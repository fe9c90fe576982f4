/**
 * A throwaway ClickHouse server for integration tests: a config and a users file in a temp dir,
 * `clickhouse-server` on free HTTP and native ports, one database, the admin URL (the `default`
 * user) for fixtures and the URL of a reader whose profile is `readonly = 2` (reads and settings, no
 * writes) limited to that database. `stop()` shuts it down and deletes everything. Without the binary
 * it reports why, for a skip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { skipForMissingServer } from './required-servers.js';

export interface TestClickhouse {
  /** The `default` user: fixtures, and the only one that may write. */
  adminUrl: string;
  /** `assay_reader`: profile readonly = 2, database assay_test only. */
  readerUrl: string;
  httpUrl: string;
  database: string;
  version: string;
  /** The server's user_files directory (where `file()` would write): the attack tests check it stays empty. */
  userFilesDirectory: string;
  /** Runs SQL as the admin; returns the body text. */
  admin(sql: string): Promise<string>;
  stop(): Promise<void>;
}

export type TestClickhouseStart = { available: true; server: TestClickhouse } | { available: false; reason: string };

const DATABASE = 'assay_test';
const READER = 'assay_reader';
const READER_PASSWORD = 'reader-secret-pw';

function findServer(): string | undefined {
  for (const candidate of ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server', '/usr/bin/clickhouse']) {
    if (existsSync(candidate)) return candidate;
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

function configXml(directory: string, httpPort: number, tcpPort: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${directory}/server.log</log><errorlog>${directory}/server.err.log</errorlog></logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${directory}/data/</path>
  <tmp_path>${directory}/tmp/</tmp_path>
  <user_files_path>${directory}/user_files/</user_files_path>
  <format_schema_path>${directory}/format_schemas/</format_schema_path>
  <users_config>${directory}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <timezone>UTC</timezone>
</yandex>
`;
}

function usersXml(): string {
  const quota = '<quota>default</quota><networks><ip>127.0.0.1</ip></networks>';
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>2000000000</max_memory_usage></default>
    <reader><readonly>2</readonly><max_memory_usage>2000000000</max_memory_usage></reader>
  </profiles>
  <users>
    <default><password></password><profile>default</profile>${quota}</default>
    <${READER}><password>${READER_PASSWORD}</password><profile>reader</profile>${quota}<allow_databases><database>${DATABASE}</database></allow_databases></${READER}>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;
}

export async function startTestClickhouse(): Promise<TestClickhouseStart> {
  const binary = findServer();
  if (binary === undefined)
    return {
      available: false,
      reason: skipForMissingServer('ClickHouse', 'no clickhouse-server binary; apt-get install -y clickhouse-server'),
    };
  const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-clickhouse-'));
  const userFilesDirectory = path.join(directory, 'user_files');
  await mkdir(userFilesDirectory, { recursive: true });
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  await writeFile(path.join(directory, 'config.xml'), configXml(directory, httpPort, tcpPort));
  await writeFile(path.join(directory, 'users.xml'), usersXml());
  const child: ChildProcess = spawn(binary, [`--config-file=${path.join(directory, 'config.xml')}`], { stdio: 'ignore', cwd: directory });
  process.once('exit', () => child.kill('SIGKILL'));
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  const admin = async (sql: string): Promise<string> => {
    const response = await fetch(`${httpUrl}/?user=default`, { method: 'POST', body: sql });
    const text = await response.text();
    if (!response.ok) throw new Error(`ClickHouse: ${text.trim()}`);
    return text;
  };
  try {
    const deadline = Date.now() + 30_000;
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    for (;;) {
      if (exited) throw new Error(`clickhouse-server exited during start-up (see ${directory}/server.err.log)`);
      const ready = await fetch(`${httpUrl}/ping`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error('clickhouse-server did not answer /ping within 30 s');
      await new Promise((done) => setTimeout(done, 100));
    }
    await admin(`CREATE DATABASE ${DATABASE}`);
    const version = (await admin('SELECT version()')).trim();
    return {
      available: true,
      server: {
        adminUrl: `clickhouse://default@127.0.0.1:${httpPort}/${DATABASE}`,
        readerUrl: `clickhouse://${READER}:${READER_PASSWORD}@127.0.0.1:${httpPort}/${DATABASE}`,
        httpUrl,
        database: DATABASE,
        version,
        userFilesDirectory,
        admin,
        stop,
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
