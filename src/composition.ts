/**
 * The composition root: the one place adapters are chosen, from config. Everything else receives
 * ports. `composeRuntime` returns the dependencies the discovery phases run against.
 */
import type { AssayConfig } from './config/index.js';
import type { DiscoveryDeps } from './discovery/context.js';
import { createSchemaSource } from './discovery/schema-source.js';
import { loadPack } from './discovery/packs/pack-loader.js';
import type { DomainPack } from './discovery/packs/pack-schema.js';
import { createEmbedder } from './embed/index.js';
import { bindLlm } from './llm/bind.js';
import { createOfflineAnalyst } from './llm/offline-analyst/index.js';
import type { OfflineBrain } from './llm/providers/offline.js';
import { silentLogger, type Logger } from './logging/index.js';
import { directoryPackLibrary } from './pack-files/directory.js';
import type { PackLibrary } from './pack-files/port.js';
import { createProjectClients, type ProjectClients } from './project-clients.js';
import { createSecretProvider } from './secrets/index.js';
import { openRunStore } from './store/index.js';
import type { RunStore } from './store/port.js';
import { createVectorIndex } from './vector/index.js';
import { openWarehouse, warehouseResourcesFrom } from './warehouse/index.js';

export { bindLlm } from './llm/bind.js';

export interface Runtime extends DiscoveryDeps {
  /** Per-project warehouses, models and embedders (the server's own when a project names none of its own). */
  clients: ProjectClients;
  close(): Promise<void>;
}

export interface ComposeOptions {
  logger?: Logger;
  /** Overrides `config.llm`; the offline brain serves `offline:` specs (default: the offline analyst). */
  offlineBrain?: OfflineBrain;
  now?: () => Date;
  /** Where packs come from (default: the shipped `domain-packs/` on disk). */
  packs?: PackLibrary;
}

export async function composeRuntime(config: AssayConfig, options: ComposeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? silentLogger;
  const offlineBrain = options.offlineBrain ?? createOfflineAnalyst();
  const warehouse = await openWarehouse(config.warehouse, {
    files: config.warehouseFiles,
    maxRows: config.sql.maxRows,
    timeoutMs: config.sql.timeoutMs,
    maxStoredBytes: config.sql.maxStoredBytes,
    resources: warehouseResourcesFrom(config.sql),
  });
  const store: RunStore = await openRunStore(config.store, { dataDir: config.dataDir });
  const embedder = createEmbedder(config.embedder, config);
  const vectorIndex = createVectorIndex(config.vectorIndex, { dataDir: config.dataDir });
  const llm = bindLlm(config.llm, config, logger, offlineBrain);
  const fastLlm = config.fastLlm ? bindLlm(config.fastLlm, config, logger, offlineBrain) : llm;
  const packs = options.packs ?? directoryPackLibrary();
  const packCache = new Map<string, DomainPack>();
  const base: DiscoveryDeps = {
    config,
    store,
    warehouse,
    llm,
    fastLlm,
    embedder,
    vectorIndex,
    schema: createSchemaSource({ config, store, warehouse, embedder, vectorIndex, logger }),
    packs,
    loadPack(slug) {
      let pack = packCache.get(slug);
      if (!pack) {
        pack = loadPack(packs, slug, { includeHidden: config.enableSystemTestPack });
        packCache.set(slug, pack);
      }
      return pack;
    },
    logger,
    now: options.now ?? (() => new Date()),
  };
  const clients = createProjectClients({ base, secrets: createSecretProvider(config.secrets), offlineBrain });
  return {
    ...base,
    clients,
    async close() {
      await clients.close();
      await Promise.allSettled([warehouse.close(), store.close(), vectorIndex.close()]);
    },
  };
}
