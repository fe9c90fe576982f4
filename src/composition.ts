/**
 * The composition root: the one place adapters are chosen, from config. Everything else receives
 * ports. `composeRuntime` returns the dependencies the discovery phases run against.
 */
import type { AssayConfig } from './config/index.js';
import type { DiscoveryDeps, LlmBinding } from './discovery/context.js';
import { createSchemaSource } from './discovery/schema-source.js';
import { loadPack } from './discovery/pack-loader.js';
import type { DomainPack } from './discovery/pack-schema.js';
import { createEmbedder } from './embed/index.js';
import { lookupModel } from './llm/catalog.js';
import { createLlmProvider } from './llm/factory.js';
import { createOfflineAnalyst } from './llm/offline-analyst/index.js';
import type { OfflineBrain } from './llm/providers/offline.js';
import { silentLogger, type Logger } from './logging/index.js';
import { openRunStore } from './store/index.js';
import type { RunStore } from './store/port.js';
import { createVectorIndex } from './vector/index.js';
import { openWarehouse } from './warehouse/index.js';

export interface Runtime extends DiscoveryDeps {
  close(): Promise<void>;
}

export interface ComposeOptions {
  logger?: Logger;
  /** Overrides `config.llm`; the offline brain serves `offline:` specs (default: the offline analyst). */
  offlineBrain?: OfflineBrain;
  now?: () => Date;
}

export function bindLlm(spec: string, config: AssayConfig, logger: Logger, offlineBrain: OfflineBrain): LlmBinding {
  const provider = createLlmProvider(spec, config, { offlineBrain });
  const { entry, known } = lookupModel(spec, config.models);
  if (!known) {
    logger.warn(
      { llm: spec, contextWindow: entry.contextWindow, maxOutputTokens: entry.maxOutputTokens },
      'model not in the catalog: using conservative limits (override them under "models" in the config)',
    );
  }
  return { provider, entry };
}

export async function composeRuntime(config: AssayConfig, options: ComposeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? silentLogger;
  const offlineBrain = options.offlineBrain ?? createOfflineAnalyst();
  const warehouse = await openWarehouse(config.warehouse, {
    files: config.warehouseFiles,
    maxRows: config.sql.maxRows,
    timeoutMs: config.sql.timeoutMs,
    maxStoredBytes: config.sql.maxStoredBytes,
  });
  const store: RunStore = await openRunStore(config.store, { dataDir: config.dataDir });
  const embedder = createEmbedder(config.embedder, config);
  const vectorIndex = createVectorIndex(config.vectorIndex, { dataDir: config.dataDir });
  const llm = bindLlm(config.llm, config, logger, offlineBrain);
  const fastLlm = config.fastLlm ? bindLlm(config.fastLlm, config, logger, offlineBrain) : llm;
  const packCache = new Map<string, DomainPack>();
  return {
    config,
    store,
    warehouse,
    llm,
    fastLlm,
    embedder,
    vectorIndex,
    schema: createSchemaSource({ config, store, warehouse, embedder, vectorIndex, logger }),
    loadPack(slug) {
      let pack = packCache.get(slug);
      if (!pack) {
        pack = loadPack(slug, { includeHidden: config.enableSystemTestPack });
        packCache.set(slug, pack);
      }
      return pack;
    },
    logger,
    now: options.now ?? (() => new Date()),
    async close() {
      await Promise.allSettled([warehouse.close(), store.close(), vectorIndex.close()]);
    },
  };
}
