/**
 * The project's schema as runs see it, over the schema cache and index: fresh ones are used as they
 * are; a missing or stale cache, a missing index or a changed embedder triggers a rebuild here.
 *
 * A worker asks for the same schema once per job — every verification, every area — so a schema found
 * ready is kept in memory for SCHEMA_MEMO_TTL_MS: jobs in that window skip the cache read (the whole
 * table list, parsed), the index check and the catalog rendering. A re-index by another process is
 * seen at most that long after it lands, which no run notices: a run's catalog already differs
 * between jobs that ran before and after a re-index.
 *
 * Sample rows: the schema carries none (discovery reads the catalog only). Its `samples` sampler reads
 * a table's rows the first time a job needs them and keeps them in the shared schema cache under the
 * schema's generation, so the other workers of the fleet read them from the store, not the warehouse.
 * One sampler per (project, warehouse, generation) lives as long as this process, so its memory of
 * sampled tables outlives the 15-second memo.
 */
import { RecentMap } from '../common/recent-map.js';
import type { AssayConfig } from '../config/index.js';
import type { Project } from '../domain/index.js';
import type { Embedder } from '../embed/port.js';
import { AssayError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import {
  assessSchemaIndex,
  createSchemaCache,
  createTableSampler,
  indexProjectSchema,
  renderCatalog,
  schemaCacheKey,
  type TableSampler,
} from '../schema/index.js';
import type { RunStore } from '../store/port.js';
import type { VectorIndex } from '../vector/port.js';
import type { Warehouse } from '../warehouse/port.js';
import type { ProjectSchema, SchemaSource } from './context.js';

/** How long a schema found ready is reused without looking at the cache and index again. */
export const SCHEMA_MEMO_TTL_MS = 15_000;
/** Distinct (warehouse, embedder, keywords, budget) views kept per process. */
const SCHEMA_MEMO_ENTRIES = 32;

export function createSchemaSource(deps: {
  config: AssayConfig;
  store: RunStore;
  warehouse: Warehouse;
  embedder: Embedder;
  vectorIndex: VectorIndex;
  logger: Logger;
}): SchemaSource {
  const cache = createSchemaCache({ store: deps.store });
  const memo = new RecentMap<{ until: number; schema: ProjectSchema }>(SCHEMA_MEMO_ENTRIES);
  const samplers = new RecentMap<TableSampler>(SCHEMA_MEMO_ENTRIES);
  const samplerFor = (projectId: string, warehouseHash: string, builtAt: string): TableSampler => {
    const key = JSON.stringify([projectId, warehouseHash, builtAt]);
    let sampler = samplers.get(key);
    if (sampler === undefined) {
      sampler = createTableSampler({
        warehouse: deps.warehouse,
        cache: { cache, projectId, warehouseHash, builtAt },
        onTableError: (table, error) =>
          deps.logger.warn({ projectId, table: `${table.schema}.${table.name}`, error: error.message }, 'sample rows not read'),
      });
      samplers.set(key, sampler);
    }
    return sampler;
  };
  return {
    async load(project: Project, options): Promise<ProjectSchema> {
      // the same key `assay index` writes under, so a pre-built index is found
      const warehouseHash = schemaCacheKey(project.warehouse.url, {
        files: deps.config.warehouseFiles,
        datasets: project.warehouse.datasets,
        filterField: project.warehouse.filter?.field,
      });
      const memoKey = JSON.stringify([project.id, warehouseHash, deps.embedder.id, options.catalogBudgetTokens, options.areaKeywords]);
      const remembered = memo.get(memoKey);
      if (remembered && remembered.until > Date.now()) return remembered.schema;
      const base = { projectId: project.id, warehouseHash, cache, vectorIndex: deps.vectorIndex };
      let assessment = await assessSchemaIndex({ ...base, embedderId: deps.embedder.id });
      if (!assessment.ready) {
        deps.logger.info(
          { projectId: project.id, reason: assessment.reason, detail: assessment.detail },
          'schema index not ready: re-indexing',
        );
        await indexProjectSchema({
          ...base,
          warehouse: deps.warehouse,
          embedder: deps.embedder,
          areaKeywords: options.areaKeywords,
          refresh: assessment.reason === 'cache_stale',
          ...(options.signal ? { signal: options.signal } : {}),
        });
        assessment = await assessSchemaIndex({ ...base, embedderId: deps.embedder.id });
        if (!assessment.ready)
          throw new AssayError(
            'internal',
            `schema index for project ${project.id} is still not usable after re-indexing: ${assessment.detail}`,
          );
      }
      const catalog = renderCatalog(assessment.tables, { areaKeywords: options.areaKeywords, budgetTokens: options.catalogBudgetTokens });
      const schema: ProjectSchema = {
        tables: assessment.tables,
        samples: samplerFor(project.id, warehouseHash, assessment.builtAt),
        catalog,
        collection: assessment.collection,
        warehouseHash,
      };
      memo.set(memoKey, { until: Date.now() + SCHEMA_MEMO_TTL_MS, schema });
      return schema;
    },
  };
}
