import type { Warehouse } from '../../src/warehouse/port.js';

/**
 * The same warehouse without the whole-catalog methods (`describeCatalog`, `sampleTables`): schema
 * discovery then describes it table by table, the path warehouses without them take.
 */
export function tableByTable(warehouse: Warehouse): Warehouse {
  return {
    dialect: warehouse.dialect,
    description: warehouse.description,
    listTables: () => warehouse.listTables(),
    describeTable: (table) => warehouse.describeTable(table),
    query: (sql, options) => warehouse.query(sql, options),
    close: async () => undefined,
  };
}
