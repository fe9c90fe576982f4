/**
 * `npm run bench -- schema`: schema discovery of the 1,500-table ERP demo (what `assay index --refresh`
 * runs before it builds the index) against the engine's own floor, measured in the same run: one
 * unfiltered `duckdb_columns()` plus one `duckdb_tables()` (every column of every table, and row
 * counts) on a plain read-only connection. Target (issue #13): discovery ≤ 3× that reference.
 *
 * Also timed: `describeCatalog` alone (columns, keys and row counts: the part the reference stands
 * for) and, once, the old table-by-table path (`describeTable` per table), unless
 * ASSAY_BENCH_SCHEMA_OLD=0. The demo is generated once into a temp dir (~10-30 s), or read from
 * ASSAY_BENCH_SCHEMA_DB when set. Medians after warm-up; rounds alternate the measured sides so
 * they share the machine's load. Writes bench-results/schema.json.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { renderTable } from '../../src/cli/context.js';
import { discoverSchema } from '../../src/schema/discovery.js';
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

export const schemaBench: Bench = {
  name: 'schema',
  description: 'schema discovery of the 1,500-table ERP demo vs one duckdb_columns() + duckdb_tables() query (target ≤ 3×)',
  async run() {
    const demo = await demoFile();
    const reference = await DuckDBInstance.create(demo.file, { access_mode: 'READ_ONLY' });
    const referenceConnection = await reference.connect();
    const warehouse = await openWarehouse(`duckdb:${demo.file}`);
    try {
      const referenceQuery = async (): Promise<number> => {
        const columns = (
          await referenceConnection.runAndReadAll(
            'SELECT database_name, schema_name, table_name, column_name, data_type, is_nullable FROM duckdb_columns()',
          )
        ).getRows();
        const tables = (
          await referenceConnection.runAndReadAll('SELECT database_name, schema_name, table_name, estimated_size FROM duckdb_tables()')
        ).getRows();
        return columns.length + tables.length;
      };
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
      const written = writeBenchResult('schema', result);
      process.stdout.write(
        `${renderTable(
          ['measure', 'median ms', '× reference'],
          [
            ['reference: duckdb_columns() + duckdb_tables()', referenceMs, 1],
            ['describeCatalog (columns, keys, row counts)', catalogMs, result.catalog_ratio],
            [`discovery (catalog + samples of ${sampledTables} tables)`, discoveryMs, result.ratio],
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
          `${result.speedup_vs_old === null ? '' : `, ${result.speedup_vs_old}× faster than the old path`}\nwrote ${written}\n`,
      );
    } finally {
      await warehouse.close();
      referenceConnection.closeSync();
      reference.closeSync();
      await demo.cleanup();
    }
  },
};
