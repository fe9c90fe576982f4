/** Schema retrieval: discovery and cache, the Level-0 catalog, lookup_schema / search_tables, the schema index. */
export * from './constants.js';
export {
  createSchemaBudget,
  DEFAULT_SCHEMA_BUDGET_LIMITS,
  lookupBudgetLine,
  searchBudgetLine,
  type SchemaBudgetLimits,
  type SchemaBudgetState,
} from './budget.js';
export { renderCatalog, renderCatalogLines, CATALOG_LEGEND, type Catalog, type CatalogOptions } from './catalog.js';
export { formatRowCount, formatSampleValue, truncateText } from './format.js';
export { inferJoins, keyPrefix } from './joins.js';
export { matchTableKeywords, prepareKeywords, stemWord, type PreparedKeywords } from './keywords.js';
export { createTableResolver, normaliseTableRef, type Resolution, type TableResolver, type TableSource } from './table-resolver.js';
export { lookupSchema, lookupSchemaWithSamples, renderTableDetail, type LookupContext, type LookupResult } from './lookup.js';
export { searchTables, clampSearchTopK, type SearchHit, type SearchResult, type SearchTablesOptions } from './search.js';
export { discoverSchema, type DiscoverSchemaOptions } from './schema-discovery.js';
export {
  createTableSampler,
  readSamples,
  withSamples,
  type ReadSamplesOptions,
  type TableSampler,
  type TableSamplerOptions,
} from './table-samples.js';
export {
  createSchemaCache,
  schemaCacheKey,
  SCHEMA_CACHE_NAMESPACE,
  SCHEMA_SAMPLES_NAMESPACE,
  type SchemaCache,
  type SchemaCacheEntry,
  type SchemaCacheOptions,
} from './cache.js';
export { templateBlurb, schemaEmbeddingText, type BlurbContext } from './blurb.js';
export {
  buildSchemaIndex,
  readSchemaIndexPointer,
  schemaCollectionName,
  tolerableBlurbFailures,
  SCHEMA_POINTER_COLLECTION,
  SCHEMA_COLLECTION_PREFIX,
  type BlurbWriter,
  type BuildSchemaIndexOptions,
  type SchemaIndexBuild,
  type SchemaIndexPointer,
} from './index-builder.js';
export {
  indexProjectSchema,
  assessSchemaIndex,
  type IndexProjectSchemaOptions,
  type ProjectSchemaIndex,
  type SchemaIndexAssessment,
} from './index-project.js';
export type { SchemaIndexPhase, SchemaIndexProgress, SchemaProgressListener } from './progress.js';
