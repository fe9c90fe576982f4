/** The Warehouse contract: every adapter passes the same behaviour tests over the fixture dataset. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError, NotFoundError, QueryTimeoutError, UnsafeSqlError, WarehouseError } from '../../../src/errors/index.js';
import type { Warehouse } from '../../../src/warehouse/index.js';

export interface WarehouseContractFixture {
  warehouse: Warehouse;
  /** Runs SQL on the engine layer alone (read-only engine, guard bypassed). Must refuse every write. */
  runUnguarded(sql: string): Promise<unknown>;
  /** NOT NULL and PRIMARY KEY survive into the warehouse (false for file-born tables). */
  declaresConstraints: boolean;
  /** A statement that runs for minutes in this dialect (default: a generate_series cross join). */
  endlessQuery?: string;
  /** The dialect's spelling of the cell-conversion query (default: the DuckDB/PostgreSQL one). */
  cellsQuery?: string;
  /** The engine has no boolean type and answers a comparison with 1 (MySQL, ClickHouse). */
  booleansAreIntegers?: boolean;
  /** ClickHouse refuses two columns with one alias ("different expressions with the same alias"). */
  refusesRepeatedAliases?: boolean;
  /** The engine's names for the fixture's column types where they differ from the portable ones (ClickHouse). */
  columnTypes?: Partial<Record<'id' | 'amount' | 'big_total' | 'created_at' | 'note', RegExp>>;
  close(): Promise<void>;
}

/** Billions of rows: only a timeout or a cancel ends it in test time. */
const ENDLESS_QUERY = 'SELECT sum(a.n * b.n) AS s FROM generate_series(1, 300000) AS a(n) CROSS JOIN generate_series(1, 300000) AS b(n)';

export function runWarehouseContract(
  name: string,
  open: () => Promise<WarehouseContractFixture>,
  options: { skipReason?: string } = {},
): void {
  if (options.skipReason !== undefined) console.log(`skipping the ${name} warehouse contract: ${options.skipReason}`);

  describe.skipIf(options.skipReason !== undefined)(`the ${name} warehouse`, () => {
    let fixture: WarehouseContractFixture;
    let warehouse: Warehouse;

    beforeAll(async () => {
      fixture = await open();
      warehouse = fixture.warehouse;
    });

    afterAll(async () => {
      await fixture?.close();
    });

    describe('when listing tables', () => {
      it('shows the user tables and hides system schemas and _assay tables', async () => {
        const tables = await warehouse.listTables();
        const names = tables.map((table) => table.name);
        expect(names).toEqual(expect.arrayContaining(['canary', 'customers', 'orders']));
        expect(names.filter((tableName) => tableName.startsWith('_assay'))).toEqual([]);
        expect(tables.filter((table) => ['information_schema', 'pg_catalog'].includes(table.schema))).toEqual([]);
        expect(names.some((tableName) => tableName.startsWith('pg_') || tableName.startsWith('duckdb_'))).toBe(false);
      });
    });

    describe('when describing a table', () => {
      it('gives columns in order with engine types and inferred categories', async () => {
        const [orders] = (await warehouse.listTables()).filter((table) => table.name === 'orders');
        const schema = await warehouse.describeTable(orders ?? { schema: 'main', name: 'orders' });
        expect(schema.qualified).toBe(`${schema.schema}.orders`);
        expect(schema.columns.map((column) => column.name)).toEqual(['id', 'customer_id', 'amount', 'big_total', 'created_at', 'note']);
        const byName = Object.fromEntries(schema.columns.map((column) => [column.name, column]));
        const types = fixture.columnTypes ?? {};
        expect(byName.id?.type).toMatch(types.id ?? /^int/i);
        expect(byName.amount?.type).toMatch(types.amount ?? /^(decimal|numeric)\(10,\s?2\)$/i);
        expect(byName.big_total?.type).toMatch(types.big_total ?? /^bigint$/i);
        expect(byName.created_at?.type).toMatch(types.created_at ?? /^timestamp/i);
        expect(byName.note?.type).toMatch(types.note ?? /char/i);
        expect(byName.id?.category).toBe('primary_key');
        expect(byName.customer_id?.category).toBe('dimension');
        expect(byName.amount?.category).toBe('metric');
        expect(byName.created_at?.category).toBe('time');
        expect(byName.note?.category).toBe('dimension');
        expect(byName.note?.nullable).toBe(true);
        if (fixture.declaresConstraints) {
          expect(byName.customer_id?.nullable).toBe(false);
          expect(byName.id?.nullable).toBe(false);
        }
      });

      it('gives an approximate row count and a few JSON-safe sample rows', async () => {
        const [orders] = (await warehouse.listTables()).filter((table) => table.name === 'orders');
        const schema = await warehouse.describeTable(orders ?? { schema: 'main', name: 'orders' });
        expect(schema.rowCount).toBe(4);
        expect(schema.samples).toHaveLength(3);
        for (const row of schema.samples ?? []) {
          expect(Object.keys(row)).toEqual(['id', 'customer_id', 'amount', 'big_total', 'created_at', 'note']);
          for (const cell of Object.values(row)) expect(['string', 'number', 'boolean', 'object']).toContain(typeof cell);
          expect(JSON.parse(JSON.stringify(row))).toEqual(row);
        }
      });

      it('throws NotFoundError for a missing table and for an _assay table', async () => {
        const [anyTable] = await warehouse.listTables();
        const schemaName = anyTable?.schema ?? 'main';
        await expect(warehouse.describeTable({ schema: schemaName, name: 'no_such_table' })).rejects.toBeInstanceOf(NotFoundError);
        await expect(warehouse.describeTable({ schema: schemaName, name: '_assay_internal' })).rejects.toBeInstanceOf(NotFoundError);
      });
    });

    describe('when querying', () => {
      it('returns columns with engine types, rows, count and elapsed time', async () => {
        const result = await warehouse.query('SELECT id, amount FROM orders ORDER BY id');
        expect(result.columns.map((column) => column.name)).toEqual(['id', 'amount']);
        expect(result.columns[0]?.type).toMatch(/^int/i);
        expect(result.rows).toEqual([
          { id: 1, amount: 10.5 },
          { id: 2, amount: 20 },
          { id: 3, amount: 5.25 },
          { id: 4, amount: 99.99 },
        ]);
        expect(result.rowCount).toBe(4);
        expect(result.truncated).toBe(false);
        expect(result.elapsedMs).toBeGreaterThanOrEqual(0);
      });

      it('fetches at most maxRows and flags truncation only when rows were left', async () => {
        const capped = await warehouse.query('SELECT id FROM orders ORDER BY id', { maxRows: 2 });
        expect(capped.rows).toEqual([{ id: 1 }, { id: 2 }]);
        expect(capped).toMatchObject({ rowCount: 2, truncated: true });
        const exact = await warehouse.query('SELECT id FROM orders ORDER BY id', { maxRows: 4 });
        expect(exact).toMatchObject({ rowCount: 4, truncated: false });
      });

      it('leaves no cap behind: catalog reads after capped queries see every table', async () => {
        const before = (await warehouse.listTables()).length;
        const catalogBefore = (await warehouse.describeCatalog?.())?.length;
        expect(before).toBeGreaterThanOrEqual(3);
        for (let round = 0; round < 6; round += 1) await warehouse.query('SELECT id FROM orders', { maxRows: 1 });
        expect((await warehouse.listTables()).length).toBe(before);
        expect((await warehouse.describeCatalog?.())?.length).toBe(catalogBefore);
        expect((await warehouse.query('SELECT id FROM orders ORDER BY id')).rowCount).toBe(4);
      });

      it('converts dates, timestamps, big integers, decimals, booleans and nulls to JSON-safe cells', async () => {
        const result = await warehouse.query(
          fixture.cellsQuery ??
            `SELECT CAST('2024-03-01' AS DATE) AS d, CAST('2024-03-01 10:11:12' AS TIMESTAMP) AS ts, CAST(9007199254740993 AS BIGINT) AS big,
                  CAST(42 AS BIGINT) AS small, CAST(12.34 AS DECIMAL(10,2)) AS amount, CAST(NULL AS INTEGER) AS nothing, 1 = 1 AS yes`,
        );
        expect(result.rows).toEqual([
          {
            d: '2024-03-01',
            ts: '2024-03-01T10:11:12.000Z',
            big: '9007199254740993',
            small: 42,
            amount: 12.34,
            nothing: null,
            yes: fixture.booleansAreIntegers ? 1 : true,
          },
        ]);
      });

      it('keeps every value of repeated column names', async () => {
        if (fixture.refusesRepeatedAliases) {
          await expect(warehouse.query('SELECT 1 AS x, 2 AS x')).rejects.toBeInstanceOf(WarehouseError);
          return;
        }
        const result = await warehouse.query('SELECT 1 AS x, 2 AS x');
        expect(result.rows).toEqual([{ x: 1, x_2: 2 }]);
      });

      it('reports a bad column as a WarehouseError', async () => {
        await expect(warehouse.query('SELECT no_such_column FROM orders')).rejects.toBeInstanceOf(WarehouseError);
      });

      it('refuses unsafe SQL with UnsafeSqlError and leaves the data as it was', async () => {
        await expect(warehouse.query('DELETE FROM canary')).rejects.toBeInstanceOf(UnsafeSqlError);
        expect((await warehouse.query('SELECT count(*) AS n FROM canary')).rows).toEqual([{ n: 1 }]);
      });

      it('serves concurrent queries', async () => {
        const results = await Promise.all([1, 2, 3].map((value) => warehouse.query(`SELECT ${value} AS v`)));
        expect(results.map((result) => result.rows[0]?.v)).toEqual([1, 2, 3]);
      });
    });

    describe('when a query runs too long', () => {
      it('stops it at the timeout with a QueryTimeoutError and stays usable', async () => {
        const error = await warehouse.query(fixture.endlessQuery ?? ENDLESS_QUERY, { timeoutMs: 300 }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(QueryTimeoutError);
        expect(error).toBeInstanceOf(WarehouseError);
        expect((error as Error).message).toMatch(/timed out after 300 ms/);
        expect((await warehouse.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
      });
    });

    describe('when the caller aborts', () => {
      it('cancels the running statement with CancelledError and stays usable', async () => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 300);
        await expect(warehouse.query(fixture.endlessQuery ?? ENDLESS_QUERY, { signal: controller.signal })).rejects.toBeInstanceOf(
          CancelledError,
        );
        expect((await warehouse.query('SELECT 2 AS ok')).rows).toEqual([{ ok: 2 }]);
      });

      it('does not start a statement whose signal is already aborted', async () => {
        const controller = new AbortController();
        controller.abort();
        await expect(warehouse.query('SELECT 1', { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
      });
    });

    describe('when the guard is bypassed and writes reach the engine directly', () => {
      it.each([
        'INSERT INTO canary VALUES (2)',
        'UPDATE canary SET id = 5',
        'DELETE FROM canary',
        'DROP TABLE canary',
        'CREATE TABLE hacked (a INTEGER)',
        'ALTER TABLE canary ADD COLUMN b INTEGER',
      ])('the read-only engine refuses %s', async (sql) => {
        await expect(fixture.runUnguarded(sql)).rejects.toThrow();
        expect((await warehouse.query('SELECT id FROM canary')).rows).toEqual([{ id: 1 }]);
      });
    });
  });
}
