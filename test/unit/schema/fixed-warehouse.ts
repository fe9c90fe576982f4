/** A Warehouse over fixed TableSchemas, for tests of code that only calls the port's metadata methods. */
import { WarehouseError } from '../../../src/errors/index.js';
import type { QueryResult, Row, TableDescription, TableSchema, Warehouse } from '../../../src/warehouse/port.js';

export interface FixedWarehouseOptions {
  /** Tables whose describeTable rejects (and any sampleTables call that includes them). */
  failing?: ReadonlySet<string>;
  /** Tables whose describeTable never settles (and any sampleTables call that includes them). */
  hanging?: ReadonlySet<string>;
  delayMs?: number;
  /** Also offer describeCatalog and sampleTables, as the real adapters do. @defaultValue false */
  wholeCatalog?: boolean;
}

export interface FixedWarehouse extends Warehouse {
  readonly maxConcurrentDescribes: number;
  readonly describeCalls: number;
  /** The tables of each sampleTables call (qualified names), in call order. */
  readonly sampleCalls: ReadonlyArray<readonly string[]>;
}

export function fixedWarehouse(tables: readonly TableSchema[], options: FixedWarehouseOptions = {}): FixedWarehouse {
  let inFlight = 0;
  let maxInFlight = 0;
  let calls = 0;
  const sampleCalls: string[][] = [];
  /** One call in flight: waits, then fails or returns whatever `read` gives. */
  async function call<T>(qualifiedNames: readonly string[], read: () => T): Promise<T> {
    if (qualifiedNames.some((name) => options.hanging?.has(name))) return new Promise<T>(() => undefined);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 1));
      const failing = qualifiedNames.find((name) => options.failing?.has(name));
      if (failing !== undefined) throw new WarehouseError(`permission denied for table ${failing}`);
      return read();
    } finally {
      inFlight -= 1;
    }
  }
  const find = (qualified: string): TableSchema => {
    const found = tables.find((table) => table.qualified === qualified);
    if (!found) throw new WarehouseError(`no table ${qualified}`);
    return structuredClone(found);
  };
  const warehouse: FixedWarehouse = {
    dialect: 'duckdb',
    description: 'duckdb:fixed-test-warehouse',
    get maxConcurrentDescribes() {
      return maxInFlight;
    },
    get describeCalls() {
      return calls;
    },
    get sampleCalls() {
      return sampleCalls;
    },
    async listTables() {
      return tables.map(({ schema, name }) => ({ schema, name }));
    },
    async describeTable(ref) {
      calls += 1;
      const qualified = `${ref.schema}.${ref.name}`;
      return call([qualified], () => find(qualified));
    },
    async query(): Promise<QueryResult> {
      throw new WarehouseError('the fixed test warehouse runs no SQL');
    },
    async close() {},
  };
  if (options.wholeCatalog !== true) return warehouse;
  return Object.assign(warehouse, {
    async describeCatalog(): Promise<TableDescription[]> {
      return tables.map(({ samples: _samples, ...description }) => structuredClone(description));
    },
    async sampleTables(requested: readonly TableDescription[]): Promise<Row[][]> {
      const names = requested.map((table) => table.qualified);
      sampleCalls.push(names);
      return call(names, () => names.map((name) => find(name).samples ?? []));
    },
  });
}
