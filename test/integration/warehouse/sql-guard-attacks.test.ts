/**
 * The attack corpus through the full adapter path against real engines: every statement is refused
 * with UnsafeSqlError, and nothing happened — the DuckDB file is byte-identical, the canary row is
 * intact, the sandbox directory stays empty, no sleep ran. The accept corpus runs to completion.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsafeSqlError, SqlSyntaxError } from '../../../src/errors/index.js';
import { openWarehouse, type SqlDialect, type Warehouse } from '../../../src/warehouse/index.js';
import { startTestPostgres } from '../../support/postgres.js';
import pg from 'pg';
import { ACCEPT_CORPUS, ATTACK_CORPUS, casesFor, HELD_OUT_PROBES, withSandbox } from '../../unit/warehouse/sql-corpus.js';
import { createDuckdbFixtureFile, loadPostgresFixture } from './fixtures.js';

/** The guard refused the statement before the engine saw it: a rule it breaks, or SQL it cannot parse. */
function refusedByTheGuard(error: unknown): boolean {
  return error instanceof UnsafeSqlError || error instanceof SqlSyntaxError;
}

const postgres = await startTestPostgres();
if (postgres.available) await loadPostgresFixture(postgres.server.adminUrl);
else console.log(`skipping the PostgreSQL attack corpus: ${postgres.reason}`);

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

interface Target {
  dialect: SqlDialect;
  available: boolean;
  open(): Promise<{ warehouse: Warehouse; fingerprint: () => string; close: () => Promise<void> }>;
}

const TARGETS: Target[] = [
  {
    dialect: 'duckdb',
    available: true,
    async open() {
      const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-attack-duckdb-'));
      const file = await createDuckdbFixtureFile(directory);
      const warehouse = await openWarehouse(`duckdb:${file}`);
      return {
        warehouse,
        fingerprint: () => sha256(file),
        close: async () => {
          await warehouse.close();
          await rm(directory, { recursive: true, force: true });
        },
      };
    },
  },
  {
    dialect: 'postgres',
    available: postgres.available,
    async open() {
      if (!postgres.available) throw new Error(postgres.reason);
      const warehouse = await openWarehouse(postgres.server.readerUrl);
      return { warehouse, fingerprint: () => 'server', close: () => warehouse.close() };
    },
  },
];

afterAll(async () => {
  if (postgres.available) await postgres.server.stop();
});

describe.each(TARGETS)('the $dialect warehouse under attack', (target) => {
  let warehouse: Warehouse;
  let fingerprint: () => string;
  let close: () => Promise<void>;
  let sandbox: string;
  let fingerprintBefore: string;

  beforeAll(async () => {
    if (!target.available) return;
    ({ warehouse, fingerprint, close } = await target.open());
    sandbox = await mkdtemp(path.join(os.tmpdir(), 'assay-attack-sandbox-'));
    await mkdir(sandbox, { recursive: true });
    fingerprintBefore = fingerprint();
  });

  afterAll(async () => {
    if (!target.available) return;
    await close();
    await rm(sandbox, { recursive: true, force: true });
  });

  it.skipIf(!target.available)(`refuses all ${casesFor(ATTACK_CORPUS, target.dialect).length} attacks and nothing changes`, async () => {
    const outcomes: Array<{ name: string; refused: boolean; detail: string }> = [];
    for (const attack of casesFor(ATTACK_CORPUS, target.dialect)) {
      const error = await warehouse.query(withSandbox(attack.sql, sandbox)).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      outcomes.push({
        name: attack.name,
        // a statement that does not parse is refused too, as the syntax error it is
        refused: refusedByTheGuard(error),
        detail: error instanceof Error ? error.message : 'executed',
      });
    }
    // every attack was refused before it ran (the guard's own errors), so pg_sleep(10) and friends never ran
    expect(outcomes.filter((outcome) => !outcome.refused)).toEqual([]);
    expect((await warehouse.query('SELECT id FROM canary')).rows).toEqual([{ id: 1 }]);
    expect((await warehouse.query('SELECT count(*) AS n FROM orders')).rows).toEqual([{ n: 4 }]);
    expect(readdirSync(sandbox)).toEqual([]);
    expect(fingerprint()).toBe(fingerprintBefore);
    const tables = (await warehouse.listTables()).map((table) => table.name);
    expect(tables).not.toContain('stolen');
    expect(tables).not.toContain('hacked');
  });

  it.skipIf(!target.available)(
    `refuses all ${casesFor(HELD_OUT_PROBES, target.dialect).length} held-out probes in the guard itself`,
    async () => {
      const executed: string[] = [];
      for (const probe of casesFor(HELD_OUT_PROBES, target.dialect)) {
        const error = await warehouse.query(probe.sql).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        // refused by the guard: a rule it breaks, or SQL the guard cannot parse (nothing executed either way)
        if (!refusedByTheGuard(error)) executed.push(`${probe.name}: ${error instanceof Error ? error.message : 'executed'}`);
      }
      expect(executed).toEqual([]);
    },
  );

  it.skipIf(!target.available)('runs every analytical query of the accept corpus', async () => {
    const failures: string[] = [];
    for (const entry of casesFor(ACCEPT_CORPUS, target.dialect)) {
      await warehouse
        .query(entry.sql)
        .catch((error: unknown) => failures.push(`${entry.name}: ${error instanceof Error ? error.message : String(error)}`));
    }
    expect(failures).toEqual([]);
  });
});

describe.skipIf(!postgres.available)('the PostgreSQL warehouse probed with SQL held in strings (issue 23)', () => {
  const server = postgres.available ? postgres.server : undefined;
  let admin: pg.Client;
  let victim: pg.Client;
  let warehouse: Warehouse;
  let logFile: string;

  beforeAll(async () => {
    if (server === undefined) return;
    admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    // every statement the reader's sessions send is written to the server log, so "did not run" is read, not timed
    await admin.query("ALTER ROLE assay_reader SET log_statement = 'all'");
    const dataDirectory = (await admin.query<{ data_directory: string }>('SHOW data_directory')).rows[0]?.data_directory ?? '';
    logFile = path.join(path.dirname(dataDirectory), 'server.log');
    // another client of the same role: what pg_terminate_backend inside ts_stat ended before
    victim = new pg.Client({ connectionString: server.readerUrl });
    await victim.connect();
    warehouse = await openWarehouse(server.readerUrl);
  });

  afterAll(async () => {
    if (server === undefined) return;
    await warehouse.close();
    await victim.end().catch(() => undefined);
    await admin.query('ALTER ROLE assay_reader RESET log_statement');
    await admin.end();
  });

  async function serverLog(): Promise<string> {
    // the superuser may read the server's own log; the agent's path refuses this very function
    return (await admin.query<{ log: string }>('SELECT pg_read_file($1) AS log', [logFile])).rows[0]?.log ?? '';
  }

  it('refuses every ts_stat and ts_rewrite case and every held-out probe, and none of them reaches the server', async () => {
    const sentinel = `SELECT 'sentinel-${Date.now()}' AS s`;
    await warehouse.query(sentinel);
    const cases = [
      ...casesFor(ATTACK_CORPUS, 'postgres').filter((entry) => /ts_stat|ts_rewrite|advisory/.test(entry.sql)),
      ...casesFor(HELD_OUT_PROBES, 'postgres'),
    ];
    expect(cases.length).toBeGreaterThan(30);
    const notRefusedByTheGuard: string[] = [];
    for (const entry of cases) {
      const error = await warehouse.query(entry.sql).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      if (!refusedByTheGuard(error)) notRefusedByTheGuard.push(entry.name);
    }
    expect(notRefusedByTheGuard).toEqual([]);
    await warehouse.query(sentinel.replace('sentinel', 'sentinel-after'));
    const log = await serverLog();
    // the log does record the reader's statements (the check can fail) …
    expect(log).toContain(sentinel);
    expect(log).toContain(sentinel.replace('sentinel', 'sentinel-after'));
    // … and not one of the refused ones
    expect(cases.filter((entry) => log.includes(entry.sql)).map((entry) => entry.name)).toEqual([]);
  });

  it('leaves every other session alive and no advisory lock behind', async () => {
    await warehouse
      .query("SELECT ts_stat('SELECT to_tsvector(pg_terminate_backend(pid)::text) FROM pg_stat_activity WHERE pid <> pg_backend_pid()')")
      .catch(() => undefined);
    await warehouse.query("SELECT ts_stat('SELECT to_tsvector(pg_advisory_lock(4242)::text)')").catch(() => undefined);
    expect((await victim.query<{ alive: number }>('SELECT 1 AS alive')).rows).toEqual([{ alive: 1 }]);
    expect((await admin.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory'")).rows).toEqual([{ n: '0' }]);
    expect((await warehouse.query('SELECT id FROM canary')).rows).toEqual([{ id: 1 }]);
  });
});
