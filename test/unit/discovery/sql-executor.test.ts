import { describe, expect, it } from 'vitest';
import { UnsafeSqlError, WarehouseError } from '../../../src/errors/index.js';
import { executeWithFixes, type SqlFixer } from '../../../src/discovery/sql/sql-executor.js';
import { extractFixedSql, renderTableColumns, tablesMentioned } from '../../../src/discovery/sql/sql-fixer.js';
import type { QueryResult, TableSchema, Warehouse } from '../../../src/warehouse/port.js';

/** A warehouse that knows one valid column per table and fails like an engine on anything else. */
function strictWarehouse(validSql: Set<string>, refuse = /drop|delete/i): Warehouse & { ran: string[] } {
  const ran: string[] = [];
  return {
    dialect: 'duckdb',
    description: 'fake',
    ran,
    async listTables() {
      return [];
    },
    async describeTable() {
      throw new Error('unused');
    },
    async query(sql: string): Promise<QueryResult> {
      if (refuse.test(sql)) throw new UnsafeSqlError('only a single SELECT statement is allowed');
      ran.push(sql);
      if (!validSql.has(sql)) throw new WarehouseError(`Binder Error: column not found in "${sql}"`);
      return { columns: [{ name: 'n', type: 'BIGINT' }], rows: [{ n: 1 }], rowCount: 1, truncated: false, elapsedMs: 1 };
    },
    async close() {},
  };
}

const orders: TableSchema = {
  schema: 'main',
  name: 'orders',
  qualified: 'main.orders',
  rowCount: 10,
  samples: [],
  columns: [
    { name: 'order_id', type: 'BIGINT', nullable: false, category: 'primary_key' },
    { name: 'device', type: 'VARCHAR', nullable: true, category: 'dimension' },
  ],
};

describe('executeWithFixes', () => {
  it('returns the first success without calling the fixer', async () => {
    const warehouse = strictWarehouse(new Set(['SELECT 1']));
    const outcome = await executeWithFixes({ warehouse, sql: 'SELECT 1', fix: async () => 'never' });
    expect(outcome).toMatchObject({ executedSql: 'SELECT 1', fixAttempts: 0, refused: false });
  });

  it('keeps the original and the executed SQL after a successful fix', async () => {
    const warehouse = strictWarehouse(new Set(['SELECT device FROM main.orders']));
    const fix: SqlFixer = async () => 'SELECT device FROM main.orders';
    const outcome = await executeWithFixes({ warehouse, sql: 'SELECT devise FROM main.orders', fix });
    expect(outcome.result?.rowCount).toBe(1);
    expect(outcome.originalSql).toBe('SELECT devise FROM main.orders');
    expect(outcome.executedSql).toBe('SELECT device FROM main.orders');
    expect(outcome.fixAttempts).toBe(1);
  });

  it('gives the fixer every earlier failed attempt and stops after five fixes', async () => {
    const warehouse = strictWarehouse(new Set());
    const seen: number[] = [];
    let n = 0;
    const outcome = await executeWithFixes({
      warehouse,
      sql: 'SELECT a',
      fix: async ({ previous }) => {
        seen.push(previous.length);
        return `SELECT a${++n}`;
      },
    });
    expect(outcome.error).toMatch(/Binder Error/);
    expect(outcome.fixAttempts).toBe(5);
    expect(warehouse.ran).toHaveLength(6);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('never sends a refused statement to the fixer and never runs it', async () => {
    const warehouse = strictWarehouse(new Set());
    let fixerCalls = 0;
    const outcome = await executeWithFixes({ warehouse, sql: 'DELETE FROM main.orders', fix: async () => (fixerCalls++, 'SELECT 1') });
    expect(outcome.refused).toBe(true);
    expect(outcome.error).toMatch(/refused/);
    expect(fixerCalls).toBe(0);
    expect(warehouse.ran).toHaveLength(0);
  });

  it('stops when the fixer returns the same statement or nothing', async () => {
    const warehouse = strictWarehouse(new Set());
    const same = await executeWithFixes({ warehouse, sql: 'SELECT x', fix: async ({ sql }) => sql });
    expect(same.fixAttempts).toBe(1);
    const none = await executeWithFixes({ warehouse, sql: 'SELECT y', fix: async () => null });
    expect(none.fixAttempts).toBe(0);
  });
});

describe('the fix prompt helpers', () => {
  it('finds the tables a statement touches, qualified or bare, and lists their columns', () => {
    const customers: TableSchema = { ...orders, name: 'customers', qualified: 'main.customers' };
    expect(tablesMentioned('select * from "main"."orders" o join customers c on true', [orders, customers]).map((t) => t.name)).toEqual([
      'customers',
      'orders',
    ]);
    expect(tablesMentioned('select * from main.orders_archive', [orders])).toEqual([]);
    expect(renderTableColumns([orders])).toContain('main.orders: order_id BIGINT, device VARCHAR');
  });

  it.each([
    ['```sql\nSELECT 1\n```', 'SELECT 1'],
    ['Here:\n```\nSELECT 2 FROM t\n```', 'SELECT 2 FROM t'],
    ['{"fixed_sql": "SELECT 3"}', 'SELECT 3'],
    ['The fix is: SELECT 4 FROM t;', 'SELECT 4 FROM t'],
    ['I cannot fix this.', null],
  ])('extracts the fixed SQL from %j', (reply, expected) => {
    expect(extractFixedSql(reply)).toBe(expected);
  });
});
