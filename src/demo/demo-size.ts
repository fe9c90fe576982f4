/** How big a demo warehouse is and which seed draws it. No DuckDB here: `assay demo-data --help` names these defaults. */

/** Fixed so that `assay demo` and the evals see the same warehouse unless asked otherwise. */
export const DEFAULT_DEMO_SEED = 42;
export const DEFAULT_DEMO_SCALE = 1;
/** Above this the "few seconds" promise no longer holds; bigger warehouses belong in a real benchmark. */
export const MAX_DEMO_SCALE = 20;
