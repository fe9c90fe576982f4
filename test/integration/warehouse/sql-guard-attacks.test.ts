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
import { ACCEPT_CORPUS, ATTACK_CORPUS, casesFor, withSandbox } from '../../unit/warehouse/sql-corpus.js';
import { createDuckdbFixtureFile, loadPostgresFixture } from './fixtures.js';

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
    const started = Date.now();
    for (const attack of casesFor(ATTACK_CORPUS, target.dialect)) {
      const error = await warehouse.query(withSandbox(attack.sql, sandbox)).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      outcomes.push({
        name: attack.name,
        // a statement that does not parse is refused too, as the syntax error it is
        refused: error instanceof UnsafeSqlError || error instanceof SqlSyntaxError,
        detail: error instanceof Error ? error.message : 'executed',
      });
    }
    expect(outcomes.filter((outcome) => !outcome.refused)).toEqual([]);
    // pg_sleep(10) and friends never ran
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await warehouse.query('SELECT id FROM canary')).rows).toEqual([{ id: 1 }]);
    expect((await warehouse.query('SELECT count(*) AS n FROM orders')).rows).toEqual([{ n: 4 }]);
    expect(readdirSync(sandbox)).toEqual([]);
    expect(fingerprint()).toBe(fingerprintBefore);
    const tables = (await warehouse.listTables()).map((table) => table.name);
    expect(tables).not.toContain('stolen');
    expect(tables).not.toContain('hacked');
  });

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
