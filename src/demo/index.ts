/** Deterministic demo warehouses (ecommerce, gaming, social, erp) with planted, checkable patterns. */
export { DEMO_KINDS, isDemoKind, parseDemoKind, type DemoKind } from './demo-kind.js';
export { DEFAULT_DEMO_SCALE, DEFAULT_DEMO_SEED, MAX_DEMO_SCALE } from './demo-size.js';
export {
  generateDemoWarehouse,
  truthsPathFor,
  type DemoWarehouseSummary,
  type GenerateDemoWarehouseOptions,
} from './generate-demo-warehouse.js';
export {
  CHECK_VALUE_COLUMN,
  demoTruthsSchema,
  describeExpectation,
  meetsExpectation,
  type DemoTruths,
  type Expectation,
  type PlantedPattern,
} from './planted-pattern.js';
export { verifyDemoTruths, readDemoTruths, checksumDemoWarehouse, type PatternCheckResult } from './verify-demo-warehouse.js';
export type { DemoTableCount } from './table-inventory.js';
export { loadDemoInto, type LoadedTable } from './demo-loader.js';
