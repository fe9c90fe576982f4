/**
 * The schema-retrieval numbers (on-demand-schema-retrieval seed). Prompts render the budgets from
 * these constants, so changing one here changes what the model is told; nothing is duplicated by hand.
 */

/** lookup_schema: tables fetched per call; more would put a wide warehouse back into one message. */
export const MAX_LOOKUP_TABLES_PER_CALL = 10;
/** lookup_schema: calls per run, debited even when a call fails, so a confused model cannot loop forever. */
export const DEFAULT_MAX_LOOKUPS_PER_RUN = 30;
/** search_tables: calls per run. */
export const DEFAULT_MAX_SEARCHES_PER_RUN = 30;
/** search_tables: hits when the model does not ask for a number. */
export const DEFAULT_SEARCH_TOP_K = 10;
/** search_tables: most hits per call, whatever the model asks for. */
export const MAX_SEARCH_TOP_K = 30;
/** Verifier: lookup_schema rounds per insight before it must write its SQL. */
export const MAX_LOOKUPS_PER_VERIFICATION = 6;

/** lookup_schema: columns shown per table; the widest tables would otherwise dominate the step. */
export const LOOKUP_MAX_COLUMNS = 50;
/** lookup_schema: sample rows shown per table: enough to see value shapes. */
export const LOOKUP_SAMPLE_ROWS = 3;
/** lookup_schema: a sample value longer than this is cut (JSON blobs, free text). */
export const LOOKUP_SAMPLE_VALUE_MAX_CHARS = 80;
/** search_tables: characters of each hit's blurb in the reply; 30 full blurbs would flood the step. */
export const SEARCH_BLURB_MAX_CHARS = 400;

/** Level-0 catalog: token budget before tables are dropped (the reference's DefaultCatalogBudgetTokens). */
export const DEFAULT_CATALOG_BUDGET_TOKENS = 150_000;
/** Level-0 catalog: area keywords shown per table line. */
export const CATALOG_MAX_KEYWORDS_PER_TABLE = 3;
/** Level-0 catalog: inferred joins shown per table line. */
export const CATALOG_MAX_JOINS_PER_TABLE = 3;
/** Level-0 catalog: characters of a table's comment on its line; the whole comment is in its lookup. */
export const CATALOG_COMMENT_MAX_CHARS = 60;
/** lookup_schema: characters of a table's comment shown. */
export const LOOKUP_TABLE_COMMENT_MAX_CHARS = 300;
/** lookup_schema: characters of a column's comment shown. */
export const LOOKUP_COLUMN_COMMENT_MAX_CHARS = 120;
/** search_tables: characters of a table's comment in its template blurb. */
export const BLURB_COMMENT_MAX_CHARS = 200;

/** Schema cache: after this age an entry is reported `stale` so the caller re-indexes. */
export const SCHEMA_CACHE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Discovery: tables described at once; warehouses throttle metadata queries. */
export const DISCOVERY_CONCURRENCY = 4;
/** Discovery and sampling: one table's description or sample read may take this long before it is skipped. */
export const DISCOVERY_TABLE_TIMEOUT_MS = 120_000;
/**
 * Sampling: tables whose samples one `sampleTables` call reads. A call gets one table's timeout;
 * a call that fails or runs out is retried table by table.
 */
export const DISCOVERY_SAMPLE_BATCH = 100;

/** Samples on demand: a sample string longer than this is cut before it is kept (lookups show 80 characters of it). */
export const SAMPLE_CELL_MAX_CHARS = 200;
/** Samples on demand: tables whose samples one process keeps in memory (the shared cache holds the rest). */
export const SAMPLED_TABLES_IN_MEMORY = 2_000;

/** Index build: blurbs generated at once (the reference's BLURB_WORKERS). */
export const BLURB_CONCURRENCY = 8;
/** Index build: a blurb longer than this is a failed blurb (a model that rambled is not describing a table). */
export const BLURB_MAX_CHARS = 4_000;
/** Index build: share of tables whose blurb may fail (they get the template blurb) before the build fails. */
export const BLURB_FAILURE_TOLERANCE = 0.05;

/** Level-0 catalog of a ~150-table warehouse (about 25 tokens a line): the cost estimate's size when the caller does not know it. */
export const DEFAULT_CATALOG_TOKENS = 4_000;
