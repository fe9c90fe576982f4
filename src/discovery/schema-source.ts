/**
 * The project's schema as runs see it, over the schema cache and index: fresh ones are used as they
 * are; a missing or stale cache, a missing index or a changed embedder triggers a rebuild here.
 */
import type { AssayConfig } from '../config/index.js';
import type { Project } from '../domain/index.js';
import type { Embedder } from '../embed/port.js';
import { AssayError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import { assessSchemaIndex, createSchemaCache, indexProjectSchema, renderCatalog, schemaCacheKey } from '../schema/index.js';
import type { RunStore } from '../store/port.js';
import type { VectorIndex } from '../vector/port.js';
import type { Warehouse } from '../warehouse/port.js';
import type { ProjectSchema, SchemaSource } from './context.js';

export function createSchemaSource(deps: {
  config: AssayConfig;
  store: RunStore;
  warehouse: Warehouse;
  embedder: Embedder;
  vectorIndex: VectorIndex;
  logger: Logger;
}): SchemaSource {
  const cache = createSchemaCache({ store: deps.store });
  return {
    async load(project: Project, options): Promise<ProjectSchema> {
      // the same key `assay index` writes under, so a pre-built index is found
      const warehouseHash = schemaCacheKey(project.warehouse.url, {
        files: deps.config.warehouseFiles,
        datasets: project.warehouse.datasets,
        filterField: project.warehouse.filter?.field,
      });
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
      return { tables: assessment.tables, catalog, collection: assessment.collection, warehouseHash };
    },
  };
}
