/**
 * The e-commerce demo loaded into the live MariaDB and ClickHouse servers (`loadDemoInto`, what
 * `assay demo-data --into` runs) gives the same answers as on DuckDB: the same rows per table, the same
 * aggregates of every measure written with each dialect's SqlSyntax (count, sum, median, 90th
 * percentile, variance, monthly counts through `truncate`), and the planted mobile-checkout pattern
 * at the same strength, within the range the truths file expects.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoWarehouse, loadDemoInto, readDemoTruths, type LoadedTable } from '../../../src/demo/index.js';
import { openWarehouse, type TableDescription, type Warehouse } from '../../../src/warehouse/index.js';
import { sqlSyntaxFor, type SqlSyntax } from '../../../src/warehouse/sql-syntax/index.js';
import { startTestClickhouse } from '../../support/clickhouse.js';
import { startTestMariadb } from '../../support/mariadb.js';

const [mariadb, clickhouse] = await Promise.all([startTestMariadb(), startTestClickhouse()]);
if (!mariadb.available) console.log(`skipping the demo on MariaDB: ${mariadb.reason}`);
if (!clickhouse.available) console.log(`skipping the demo on ClickHouse: ${clickhouse.reason}`);

const workDir = mkdtempSync(join(tmpdir(), 'assay-demo-engines-'));
let duckdb: Warehouse;
let catalog: TableDescription[];
let truthsPath: string;
const engines: Array<{ name: string; warehouse: Warehouse; loaded: LoadedTable[]; schema: string }> = [];

beforeAll(async () => {
  const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop.duckdb') });
  if (demo.truthsPath === null) throw new Error('the demo generator wrote no truths file');
  truthsPath = demo.truthsPath;
  duckdb = await openWarehouse(`duckdb:${demo.path}`);
  catalog = (await duckdb.describeCatalog?.()) ?? [];
  if (mariadb.available) {
    const loaded = await loadDemoInto(demo.path, mariadb.server.adminUrl);
    engines.push({ name: 'MariaDB', warehouse: await openWarehouse(mariadb.server.readerUrl), loaded, schema: mariadb.server.database });
  }
  if (clickhouse.available) {
    const loaded = await loadDemoInto(demo.path, clickhouse.server.adminUrl);
    engines.push({
      name: 'ClickHouse',
      warehouse: await openWarehouse(clickhouse.server.readerUrl),
      loaded,
      schema: clickhouse.server.database,
    });
  }
}, 240_000);

afterAll(async () => {
  for (const engine of engines) await engine.warehouse.close();
  await duckdb?.close();
  if (mariadb.available) await mariadb.server.stop();
  if (clickhouse.available) await clickhouse.server.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** One SELECT per table: row count, and sum, median, p90 and variance of every measure, in the warehouse's dialect. */
function aggregatesSql(syntax: SqlSyntax, table: TableDescription, schema: string): string {
  const parts = ['COUNT(*) AS n'];
  table.columns
    .filter((column) => column.category === 'metric')
    .forEach((column, index) => {
      const value = syntax.toDouble(syntax.identifier(column.name));
      parts.push(
        `${syntax.toDouble(`SUM(${value})`)} AS s${index}`,
        `${syntax.median(value)} AS m${index}`,
        `${syntax.quantile(value, 0.9)} AS q${index}`,
        `${syntax.variance(value)} AS v${index}`,
      );
    });
  return `SELECT ${parts.join(', ')} FROM ${syntax.table({ schema, name: table.name })}`;
}

/** Monthly row counts of a time column, through SqlSyntax's truncate. */
function monthlySql(syntax: SqlSyntax, table: TableDescription, column: string, schema: string): string {
  const month = syntax.truncate(syntax.identifier(column), 'month');
  return `SELECT ${syntax.toText(`${syntax.year(syntax.identifier(column))} * 100 + ${syntax.calendarPart(syntax.identifier(column), 'month_of_year')}`)} AS m, COUNT(*) AS n FROM ${syntax.table({ schema, name: table.name })} WHERE ${syntax.identifier(column)} IS NOT NULL GROUP BY ${month}, m ORDER BY m`;
}

/** The planted mobile-checkout pattern's strength (mobile ÷ desktop abandonment), without CTEs (ClickHouse 18.16 has none). */
function checkoutRatioSql(syntax: SqlSyntax, schema: string): string {
  const sessions = syntax.table({ schema, name: 'sessions' });
  const orders = syntax.table({ schema, name: 'orders' });
  // doubles, not decimal literals: MySQL averages a DECIMAL to 4 more digits only (div_precision_increment)
  const abandoned = `CASE WHEN o.order_id IS NULL THEN ${syntax.toDouble('1')} ELSE ${syntax.toDouble('0')} END`;
  return `SELECT ${syntax.toDouble(`AVG(CASE WHEN c.device_type = 'mobile' THEN c.abandoned END) / AVG(CASE WHEN c.device_type = 'desktop' THEN c.abandoned END)`)} AS ratio
    FROM (SELECT s.device_type AS device_type, ${abandoned} AS abandoned FROM ${sessions} AS s LEFT JOIN ${orders} AS o ON o.session_id = s.session_id WHERE s.reached_checkout = ${syntax.boolean(true)}) AS c`;
}

function close(actual: Record<string, unknown>, expected: Record<string, unknown>): string[] {
  const differences: string[] = [];
  for (const [key, value] of Object.entries(expected)) {
    const left = Number(value);
    const right = Number(actual[key]);
    if (value === null && actual[key] === null) continue;
    if (!(Math.abs(left - right) <= 1e-6 * Math.max(1, Math.abs(left))))
      differences.push(`${key}: ${String(actual[key])} ≠ ${String(value)}`);
  }
  return differences;
}

describe.skipIf(!mariadb.available && !clickhouse.available)(
  'when the e-commerce demo is loaded into MariaDB and ClickHouse',
  { timeout: 120_000 },
  () => {
    it('holds the same rows per table as the DuckDB demo', async () => {
      for (const engine of engines) {
        const expected = Object.fromEntries(catalog.map((table) => [table.name, table.rowCount]));
        expect(Object.fromEntries(engine.loaded.map((table) => [table.name, table.rows])), engine.name).toEqual(expected);
      }
    });

    it('answers every SqlSyntax aggregate of every measure as DuckDB does', async () => {
      const duckSyntax = sqlSyntaxFor('duckdb');
      for (const table of catalog) {
        const expected = (await duckdb.query(aggregatesSql(duckSyntax, table, 'main'))).rows[0] ?? {};
        for (const engine of engines) {
          const actual =
            (await engine.warehouse.query(aggregatesSql(sqlSyntaxFor(engine.warehouse.dialect), table, engine.schema))).rows[0] ?? {};
          expect(close(actual, expected), `${engine.name} ${table.name}`).toEqual([]);
        }
      }
    });

    it('buckets every time column into the same months', async () => {
      const duckSyntax = sqlSyntaxFor('duckdb');
      for (const table of catalog) {
        for (const column of table.columns.filter((entry) => /^(TIMESTAMP|DATE)/.test(entry.type))) {
          const expected = (await duckdb.query(monthlySql(duckSyntax, table, column.name, 'main'))).rows;
          for (const engine of engines) {
            const actual = (
              await engine.warehouse.query(monthlySql(sqlSyntaxFor(engine.warehouse.dialect), table, column.name, engine.schema))
            ).rows;
            expect(
              actual.map((row) => [String(row.m), Number(row.n)]),
              `${engine.name} ${table.name}.${column.name}`,
            ).toEqual(expected.map((row) => [String(row.m), Number(row.n)]));
          }
        }
      }
    });

    it('shows the planted mobile-checkout abandonment at the same strength, within the truths file’s range', async () => {
      const truths = await readDemoTruths(truthsPath);
      const pattern = truths.patterns.find((entry) => entry.id.includes('checkout') || /checkout/i.test(entry.title));
      expect(pattern?.check.expect.op).toBe('between');
      const expected = Number((await duckdb.query(checkoutRatioSql(sqlSyntaxFor('duckdb'), 'main'))).rows[0]?.ratio);
      if (pattern?.check.expect.op === 'between') {
        expect(expected).toBeGreaterThanOrEqual(pattern.check.expect.min);
        expect(expected).toBeLessThanOrEqual(pattern.check.expect.max);
      }
      for (const engine of engines) {
        const ratio = Number(
          (await engine.warehouse.query(checkoutRatioSql(sqlSyntaxFor(engine.warehouse.dialect), engine.schema))).rows[0]?.ratio,
        );
        expect(ratio, engine.name).toBeCloseTo(expected, 9);
      }
    });
  },
);
