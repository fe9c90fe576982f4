/**
 * `npm run bench -- schema`: schema discovery of the 1,500-table ERP demo (what `assay index --refresh`
 * runs before it builds the index) against the engine's own floor, measured in the same run: one
 * unfiltered `duckdb_columns()` plus one `duckdb_tables()` (every column of every table, and row
 * counts) on a plain read-only connection. Target (issue #13): discovery ≤ 3× that reference.
 *
 * Then (issue #26, item 6: discovery reads the catalog only, samples on demand) two more sections:
 * - **10,000 tables on DuckDB** (generated, see `wideWarehouse`; ASSAY_BENCH_SCHEMA_WIDE=0 skips it):
 *   discovery warm (median) and in a fresh process (`schema-fresh-process.ts`: time and peak RSS,
 *   target ≤ 1 GB), the same reference, and the first lookup's samples of 10 tables.
 * - **each live engine** (MariaDB, ClickHouse; throwaway servers from `test/support/`, skipped with the
 *   reason when the binaries are missing; ASSAY_BENCH_SCHEMA_ENGINES=0 skips it): the ERP demo at
 *   scale 0.1 loaded with `loadDemoInto`, discovery against one raw columns-catalog query
 *   (`information_schema.COLUMNS` / `system.columns`). Target ≤ 3× everywhere.
 *
 * Also timed: `describeCatalog` alone (columns, keys and row counts: the part the reference stands
 * for) and, once, the old table-by-table path (`describeTable` per table), unless
 * ASSAY_BENCH_SCHEMA_OLD=0. The demo is generated once into a temp dir (~10-30 s), or read from
 * ASSAY_BENCH_SCHEMA_DB when set. Medians after warm-up; rounds alternate the measured sides so
 * they share the machine's load. Writes bench-results/schema.json.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { loadDemoInto } from '../../src/demo/demo-loader.js';
import { createTableSampler } from '../../src/schema/table-samples.js';
import type { Warehouse } from '../../src/warehouse/port.js';
import { startTestClickhouse } from '../support/clickhouse.js';
import { startTestMariadb } from '../support/mariadb.js';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { renderTable } from '../../src/cli/context.js';
import { discoverSchema } from '../../src/schema/schema-discovery.js';
import { generateDemoWarehouse } from '../../src/demo/index.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { round, writeBenchResult, type Bench } from './bench.js';
import { tableByTable } from '../support/table-by-table.js';

const WARM_UP_ROUNDS = 2;
const TIMED_ROUNDS = 7;
/** The issue's target: discovery within this multiple of the reference. */
const TARGET_RATIO = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await work();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
}

async function demoFile(): Promise<{ file: string; generatedMs: number | null; cleanup: () => Promise<void> }> {
  const given = process.env.ASSAY_BENCH_SCHEMA_DB;
  if (given !== undefined && given !== '') {
    if (!existsSync(given)) throw new Error(`ASSAY_BENCH_SCHEMA_DB=${given} does not exist`);
    return { file: path.resolve(given), generatedMs: null, cleanup: async () => undefined };
  }
  const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-bench-schema-'));
  const file = path.join(directory, 'erp.duckdb');
  process.stdout.write('generating the 1,500-table ERP demo once …\n');
  const summary = await generateDemoWarehouse({ kind: 'erp', out: file });
  return { file, generatedMs: summary.elapsedMs, cleanup: () => rm(directory, { recursive: true, force: true }) };
}

/** Tables of the generated wide warehouse. */
const WIDE_TABLES = 10_000;
/** Rows per generated table: enough for samples, small enough to generate 10,000 tables in about a minute. */
const WIDE_ROWS = 20;
/** Tables per CREATE batch sent to DuckDB while generating. */
const WIDE_CREATE_BATCH = 250;
/** Timed rounds of the wide warehouse and of each live engine (each round is seconds long there). */
const LONG_ROUNDS = 3;
/** The issue's target for peak RSS of a fresh-process discovery of 10,000 tables. */
const TARGET_RSS_BYTES = 1024 ** 3;
/** Tables a first lookup shows at most (MAX_LOOKUP_TABLES_PER_CALL). */
const LOOKUP_TABLES = 10;

/**
 * 10,000 tables in 10 schema families, 4–11 columns each (id, a time, a measure, a status, then
 * 0–7 text columns), WIDE_ROWS rows: a warehouse as wide as a large ERP, generated in one DuckDB file.
 */
async function wideWarehouse(file: string): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    for (let start = 0; start < WIDE_TABLES; start += WIDE_CREATE_BATCH) {
      const statements: string[] = [];
      for (let index = start; index < Math.min(WIDE_TABLES, start + WIDE_CREATE_BATCH); index += 1) {
        const extra = Array.from({ length: index % 8 }, (_, column) => `, 'v' || (i % ${column + 3}) AS attribute_${column}`).join('');
        statements.push(
          `CREATE TABLE family_${index % 10}_table_${String(index).padStart(5, '0')} AS SELECT i AS id, ` +
            `TIMESTAMP '2024-01-01' + to_days(CAST(i AS INTEGER)) AS created_at, i * 1.5 AS amount, ` +
            `CASE WHEN i % 2 = 0 THEN 'open' ELSE 'closed' END AS status${extra} FROM range(${WIDE_ROWS}) t(i);`,
        );
      }
      await connection.run(statements.join('\n'));
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** One discovery in a new Node process: its time and peak RSS. */
function freshProcessDiscovery(url: string): { ms: number; tables: number; max_rss_bytes: number } {
  const script = fileURLToPath(new URL('./schema-fresh-process.ts', import.meta.url));
  const child = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), script, url], {
    encoding: 'utf8',
    env: process.env,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`fresh-process discovery failed (exit ${child.status}): ${child.stderr}`);
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as { ms: number; tables: number; max_rss_bytes: number };
}

interface WideResult {
  tables: number;
  columns: number;
  generated_ms: number;
  reference_ms: number;
  catalog_ms: number;
  discovery_warm_ms: number;
  discovery_fresh_process_ms: number;
  fresh_process_peak_rss_mb: number;
  first_lookup_samples_ms: number;
  ratio_warm: number;
  ratio_fresh_process: number;
  rss_within_target: boolean;
}

async function benchWide(): Promise<WideResult> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-bench-schema-wide-'));
  const file = path.join(directory, 'wide.duckdb');
  try {
    process.stdout.write(`generating ${WIDE_TABLES.toLocaleString('en-US')} tables …\n`);
    const generated = await timed(() => wideWarehouse(file));
    const fresh = freshProcessDiscovery(`duckdb:${file}`);
    const reference = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
    const referenceConnection = await reference.connect();
    const warehouse = await openWarehouse(`duckdb:${file}`);
    try {
      const describeCatalog = warehouse.describeCatalog?.bind(warehouse);
      if (describeCatalog === undefined) throw new Error('the DuckDB adapter has no describeCatalog');
      const times = { reference: [] as number[], catalog: [] as number[], discovery: [] as number[] };
      let tables: Awaited<ReturnType<typeof discoverSchema>> = [];
      for (let round_ = 0; round_ < 1 + LONG_ROUNDS; round_ += 1) {
        const referenceRun = await timed(() => duckdbReference(referenceConnection));
        const catalogRun = await timed(describeCatalog);
        const discoveryRun = await timed(() => discoverSchema(warehouse));
        tables = discoveryRun.value;
        if (round_ === 0) continue;
        times.reference.push(referenceRun.ms);
        times.catalog.push(catalogRun.ms);
        times.discovery.push(discoveryRun.ms);
      }
      // what the first lookup_schema of a run adds: samples of the tables it shows, read on demand
      const shown = tables.filter((_, index) => index % Math.floor(tables.length / LOOKUP_TABLES) === 0).slice(0, LOOKUP_TABLES);
      const lookup = await timed(() => createTableSampler({ warehouse }).samplesOf(shown));
      const referenceMs = round(median(times.reference), 1);
      const warmMs = round(median(times.discovery), 1);
      return {
        tables: tables.length,
        columns: tables.reduce((sum, table) => sum + table.columns.length, 0),
        generated_ms: round(generated.ms, 0),
        reference_ms: referenceMs,
        catalog_ms: round(median(times.catalog), 1),
        discovery_warm_ms: warmMs,
        discovery_fresh_process_ms: round(fresh.ms, 0),
        fresh_process_peak_rss_mb: round(fresh.max_rss_bytes / 1024 ** 2, 0),
        first_lookup_samples_ms: round(lookup.ms, 1),
        ratio_warm: round(warmMs / referenceMs, 2),
        ratio_fresh_process: round(fresh.ms / referenceMs, 2),
        rss_within_target: fresh.max_rss_bytes <= TARGET_RSS_BYTES,
      };
    } finally {
      await warehouse.close();
      referenceConnection.closeSync();
      reference.closeSync();
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

interface EngineResult {
  engine: string;
  version: string;
  tables: number;
  load_ms: number;
  reference_ms: number;
  catalog_ms: number;
  discovery_ms: number;
  ratio: number;
  catalog_ratio: number;
}

/** Discovery on a live engine against one raw catalog query there, rounds alternating. */
async function benchEngine(
  engine: string,
  version: string,
  warehouse: Warehouse,
  referenceQuery: () => Promise<unknown>,
  loadMs: number,
): Promise<EngineResult> {
  const describeCatalog = warehouse.describeCatalog?.bind(warehouse);
  if (describeCatalog === undefined) throw new Error(`the ${engine} adapter has no describeCatalog`);
  const times = { reference: [] as number[], catalog: [] as number[], discovery: [] as number[] };
  let tables = 0;
  for (let round_ = 0; round_ < 1 + LONG_ROUNDS; round_ += 1) {
    const referenceRun = await timed(referenceQuery);
    const catalogRun = await timed(describeCatalog);
    const discoveryRun = await timed(() => discoverSchema(warehouse));
    tables = discoveryRun.value.length;
    if (round_ === 0) continue;
    times.reference.push(referenceRun.ms);
    times.catalog.push(catalogRun.ms);
    times.discovery.push(discoveryRun.ms);
  }
  const referenceMs = round(median(times.reference), 1);
  const discoveryMs = round(median(times.discovery), 1);
  const catalogMs = round(median(times.catalog), 1);
  return {
    engine,
    version,
    tables,
    load_ms: round(loadMs, 0),
    reference_ms: referenceMs,
    catalog_ms: catalogMs,
    discovery_ms: discoveryMs,
    ratio: round(discoveryMs / referenceMs, 2),
    catalog_ratio: round(catalogMs / referenceMs, 2),
  };
}

/** The ERP demo at scale 0.1 in MariaDB and ClickHouse; an engine whose server cannot start is skipped with the reason. */
async function benchLiveEngines(): Promise<{ results: EngineResult[]; skipped: string[] }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-bench-schema-engines-'));
  const file = path.join(directory, 'erp.duckdb');
  const results: EngineResult[] = [];
  const skipped: string[] = [];
  try {
    process.stdout.write('generating the ERP demo at scale 0.1 for the live engines …\n');
    await generateDemoWarehouse({ kind: 'erp', out: file, scale: 0.1 });

    const mariadb = await startTestMariadb();
    if (!mariadb.available) skipped.push(`MariaDB: ${mariadb.reason}`);
    else {
      const { server } = mariadb;
      try {
        process.stdout.write('loading it into MariaDB …\n');
        const load = await timed(() => loadDemoInto(file, server.adminUrl));
        const connection = await mysql.createConnection(server.readerUrl);
        const warehouse = await openWarehouse(server.readerUrl);
        try {
          const reference = () =>
            connection.query(
              'SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?',
              [server.database],
            );
          results.push(await benchEngine(`MariaDB ${server.version}`, server.version, warehouse, reference, load.ms));
        } finally {
          await warehouse.close();
          await connection.end();
        }
      } finally {
        await server.stop();
      }
    }

    const clickhouse = await startTestClickhouse();
    if (!clickhouse.available) skipped.push(`ClickHouse: ${clickhouse.reason}`);
    else {
      const { server } = clickhouse;
      try {
        process.stdout.write('loading it into ClickHouse …\n');
        const load = await timed(() => loadDemoInto(file, server.adminUrl));
        const warehouse = await openWarehouse(server.readerUrl);
        try {
          const reference = () =>
            server.admin(`SELECT table, name, type FROM system.columns WHERE database = '${server.database}' FORMAT TabSeparated`);
          results.push(await benchEngine(`ClickHouse ${server.version}`, server.version, warehouse, reference, load.ms));
        } finally {
          await warehouse.close();
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  return { results, skipped };
}

/** One unfiltered duckdb_columns() plus one duckdb_tables(): DuckDB's own floor for reading a catalog. */
async function duckdbReference(connection: Awaited<ReturnType<DuckDBInstance['connect']>>): Promise<number> {
  const columns = (
    await connection.runAndReadAll(
      'SELECT database_name, schema_name, table_name, column_name, data_type, is_nullable FROM duckdb_columns()',
    )
  ).getRows();
  const tables = (
    await connection.runAndReadAll('SELECT database_name, schema_name, table_name, estimated_size FROM duckdb_tables()')
  ).getRows();
  return columns.length + tables.length;
}

export const schemaBench: Bench = {
  name: 'schema',
  description: 'schema discovery of the 1,500-table ERP demo vs one duckdb_columns() + duckdb_tables() query (target ≤ 3×)',
  async run() {
    const demo = await demoFile();
    const reference = await DuckDBInstance.create(demo.file, { access_mode: 'READ_ONLY' });
    const referenceConnection = await reference.connect();
    const warehouse = await openWarehouse(`duckdb:${demo.file}`);
    try {
      const referenceQuery = () => duckdbReference(referenceConnection);
      const describeCatalog = warehouse.describeCatalog?.bind(warehouse);
      if (describeCatalog === undefined) throw new Error('the DuckDB adapter has no describeCatalog');

      const times = { reference: [] as number[], catalog: [] as number[], discovery: [] as number[] };
      let tableCount = 0;
      let columnCount = 0;
      let sampledTables = 0;
      for (let round_ = 0; round_ < WARM_UP_ROUNDS + TIMED_ROUNDS; round_ += 1) {
        const referenceRun = await timed(referenceQuery);
        const catalogRun = await timed(describeCatalog);
        const discoveryRun = await timed(() => discoverSchema(warehouse));
        if (round_ < WARM_UP_ROUNDS) continue;
        times.reference.push(referenceRun.ms);
        times.catalog.push(catalogRun.ms);
        times.discovery.push(discoveryRun.ms);
        tableCount = discoveryRun.value.length;
        columnCount = discoveryRun.value.reduce((sum, table) => sum + table.columns.length, 0);
        sampledTables = discoveryRun.value.filter((table) => (table.samples?.length ?? 0) > 0).length;
      }

      let oldPath: { ms: number; tables: number } | null = null;
      if (process.env.ASSAY_BENCH_SCHEMA_OLD !== '0') {
        process.stdout.write('timing the old table-by-table path once (about a minute) …\n');
        const oldRun = await timed(() => discoverSchema(tableByTable(warehouse)));
        oldPath = { ms: oldRun.ms, tables: oldRun.value.length };
      }

      const referenceMs = round(median(times.reference), 1);
      const catalogMs = round(median(times.catalog), 1);
      const discoveryMs = round(median(times.discovery), 1);
      const result = {
        warehouse: 'erp demo (seed 42, scale 1)',
        tables: tableCount,
        columns: columnCount,
        tables_with_samples: sampledTables,
        generated_ms: demo.generatedMs,
        rounds: TIMED_ROUNDS,
        warm_up_rounds: WARM_UP_ROUNDS,
        reference_ms: referenceMs,
        catalog_ms: catalogMs,
        discovery_ms: discoveryMs,
        old_path_ms: oldPath === null ? null : round(oldPath.ms, 0),
        /** discovery_ms / reference_ms: the issue's target is ≤ 3. */
        ratio: round(discoveryMs / referenceMs, 2),
        catalog_ratio: round(catalogMs / referenceMs, 2),
        speedup_vs_old: oldPath === null ? null : round(oldPath.ms / discoveryMs, 1),
        target_ratio: TARGET_RATIO,
        samples_ms: {
          reference: times.reference.map((ms) => round(ms, 1)),
          catalog: times.catalog.map((ms) => round(ms, 1)),
          discovery: times.discovery.map((ms) => round(ms, 1)),
        },
      };
      const wide = process.env.ASSAY_BENCH_SCHEMA_WIDE === '0' ? null : await benchWide();
      const engines = process.env.ASSAY_BENCH_SCHEMA_ENGINES === '0' ? null : await benchLiveEngines();
      const written = writeBenchResult('schema', {
        ...result,
        wide_duckdb: wide,
        live_engines: engines?.results ?? null,
        live_engines_skipped: engines?.skipped ?? null,
        machine: {
          cpus: os.cpus().length,
          load_average_1m: round(os.loadavg()[0] ?? 0, 2),
          total_memory_gb: round(os.totalmem() / 1024 ** 3, 1),
        },
      });
      process.stdout.write(
        `${renderTable(
          ['measure', 'median ms', '× reference'],
          [
            ['reference: duckdb_columns() + duckdb_tables()', referenceMs, 1],
            ['describeCatalog (columns, keys, row counts)', catalogMs, result.catalog_ratio],
            [`discovery (catalog only: ${sampledTables} tables sampled)`, discoveryMs, result.ratio],
            [
              'old path: describeTable per table (1 run)',
              oldPath === null ? 'skipped' : round(oldPath.ms, 0),
              oldPath === null ? '-' : round(oldPath.ms / referenceMs, 1),
            ],
          ],
        )}\n`,
      );
      process.stdout.write(
        `${tableCount} tables, ${columnCount} columns; discovery ${result.ratio}× the reference (target ≤ ${TARGET_RATIO}×)` +
          `${result.speedup_vs_old === null ? '' : `, ${result.speedup_vs_old}× faster than the old path`}\n`,
      );
      if (wide !== null) {
        process.stdout.write(
          `\n${wide.tables.toLocaleString('en-US')} generated tables on DuckDB (${wide.columns.toLocaleString('en-US')} columns, generated in ${wide.generated_ms} ms):\n` +
            `${renderTable(
              ['measure', 'ms', '× reference'],
              [
                ['reference: duckdb_columns() + duckdb_tables()', wide.reference_ms, 1],
                ['describeCatalog', wide.catalog_ms, round(wide.catalog_ms / wide.reference_ms, 2)],
                ['discovery, warm (median)', wide.discovery_warm_ms, wide.ratio_warm],
                [
                  `discovery, fresh process (peak RSS ${wide.fresh_process_peak_rss_mb} MB)`,
                  wide.discovery_fresh_process_ms,
                  wide.ratio_fresh_process,
                ],
                [`first lookup: samples of ${LOOKUP_TABLES} tables`, wide.first_lookup_samples_ms, '-'],
              ],
            )}\n` +
            `peak RSS ${wide.fresh_process_peak_rss_mb} MB (target ≤ 1,024 MB): ${wide.rss_within_target ? 'met' : 'missed'}\n`,
        );
      }
      if (engines !== null) {
        process.stdout.write(
          `\nlive engines, ERP demo at scale 0.1:\n${renderTable(
            ['engine', 'tables', 'catalog query ms', 'describeCatalog ms', 'discovery ms', 'discovery × catalog query'],
            engines.results.map((entry) => [
              entry.engine,
              entry.tables,
              entry.reference_ms,
              entry.catalog_ms,
              entry.discovery_ms,
              entry.ratio,
            ]),
          )}\n`,
        );
        for (const reason of engines.skipped) process.stdout.write(`skipped ${reason}\n`);
      }
      process.stdout.write(`wrote ${written}\n`);
    } finally {
      await warehouse.close();
      referenceConnection.closeSync();
      reference.closeSync();
      await demo.cleanup();
    }
  },
};
