/** A Warehouse over fixed TableSchemas, for tests of code that only calls the port's metadata methods. */
import { WarehouseError } from '../../../src/errors/index.js';
import type { QueryResult, TableSchema, Warehouse } from '../../../src/warehouse/port.js';

export interface FixedWarehouseOptions {
  /** Tables whose describeTable rejects. */
  failing?: ReadonlySet<string>;
  /** Tables whose describeTable never settles. */
  hanging?: ReadonlySet<string>;
  delayMs?: number;
}

export interface FixedWarehouse extends Warehouse {
  readonly maxConcurrentDescribes: number;
  readonly describeCalls: number;
}

export function fixedWarehouse(tables: readonly TableSchema[], options: FixedWarehouseOptions = {}): FixedWarehouse {
  let inFlight = 0;
  let maxInFlight = 0;
  let calls = 0;
  return {
    dialect: 'duckdb',
    description: 'duckdb:fixed-test-warehouse',
    get maxConcurrentDescribes() {
      return maxInFlight;
    },
    get describeCalls() {
      return calls;
    },
    async listTables() {
      return tables.map(({ schema, name }) => ({ schema, name }));
    },
    async describeTable(ref) {
      calls += 1;
      const qualified = `${ref.schema}.${ref.name}`;
      if (options.hanging?.has(qualified)) return new Promise<TableSchema>(() => undefined);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 1));
        if (options.failing?.has(qualified)) throw new WarehouseError(`permission denied for table ${qualified}`);
        const found = tables.find((table) => table.qualified === qualified);
        if (!found) throw new WarehouseError(`no table ${qualified}`);
        return structuredClone(found);
      } finally {
        inFlight -= 1;
      }
    },
    async query(): Promise<QueryResult> {
      throw new WarehouseError('the fixed test warehouse runs no SQL');
    },
    async close() {},
  };
}
