/** `assay index`: describe the warehouse, refresh the schema cache, build the project's schema index, print a summary. */
import type { Command } from 'commander';
import { ValidationError } from '../../errors/index.js';
import type { SchemaIndexProgress } from '../../schema/index.js';
import { printJson, renderTable } from '../output.js';

const PROJECT_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface IndexCommandOptions {
  warehouse?: string;
  project: string;
  pack?: string;
  refresh?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('index')
    .description("describe the warehouse, refresh the schema cache and build the project's schema index (Phase 0)")
    .option('-w, --warehouse <url>', 'warehouse URL (duckdb:file.duckdb, postgres://…); default: the configured warehouse')
    .option('-p, --project <id>', 'project id the cache and index belong to', 'default')
    .option('--pack <slug>', 'domain pack whose area keywords tag the tables (e.g. ecommerce)')
    .option('--refresh', 'describe the warehouse again even when the schema cache is fresh')
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  assay index\n  assay index --warehouse duckdb:shop.duckdb --project shop --pack ecommerce --refresh',
    )
    .action(async (options: IndexCommandOptions, command: Command) => {
      if (!PROJECT_ID.test(options.project)) {
        throw new ValidationError(`--project "${options.project}": use letters, digits, _ and - (1-64)`, [
          { path: 'project', message: 'letters, digits, _ and -' },
        ]);
      }
      const [
        { cliConfig, cliLogger },
        { loadPack },
        { directoryPackLibrary },
        { createEmbedder },
        { createSchemaCache, indexProjectSchema, renderCatalog, schemaCacheKey },
        { openRunStore },
        { createVectorIndex },
        { openWarehouse },
      ] = await Promise.all([
        import('../context.js'),
        import('../../discovery/packs/pack-loader.js'),
        import('../../pack-files/directory.js'),
        import('../../embed/index.js'),
        import('../../schema/index.js'),
        import('../../store/index.js'),
        import('../../vector/index.js'),
        import('../../warehouse/index.js'),
      ]);
      const config = cliConfig(command);
      const logger = cliLogger(config, command);
      const url = options.warehouse ?? config.warehouse;
      const files = url === config.warehouse ? config.warehouseFiles : {};
      const areaKeywords = options.pack
        ? [
            ...new Set(
              loadPack(directoryPackLibrary(), options.pack, { includeHidden: config.enableSystemTestPack }).areas.flatMap(
                (area) => area.keywords,
              ),
            ),
          ]
        : [];
      const embedder = createEmbedder(config.embedder, config);
      const vectorIndex = createVectorIndex(config.vectorIndex, { dataDir: config.dataDir });
      const store = await openRunStore(config.store, { dataDir: config.dataDir });
      const cache = createSchemaCache({ store });
      const warehouse = await openWarehouse(url, { files, timeoutMs: config.sql.timeoutMs });
      const started = performance.now();
      let lastPhase = '';
      const onProgress = (progress: SchemaIndexProgress): void => {
        if (progress.phase !== lastPhase || progress.done === progress.total) logger.info({ ...progress }, 'schema index progress');
        lastPhase = progress.phase;
      };
      try {
        const result = await indexProjectSchema({
          projectId: options.project,
          warehouse,
          warehouseHash: schemaCacheKey(url, { files }),
          cache,
          embedder,
          vectorIndex,
          areaKeywords,
          refresh: options.refresh === true,
          onProgress,
          onTableError: (table, error) => logger.warn({ table: `${table.schema}.${table.name}`, err: error }, 'table skipped'),
        });
        const catalog = renderCatalog(result.tables, { areaKeywords });
        const summary = {
          project: options.project,
          warehouse: warehouse.description,
          tables: result.tables.length,
          tables_from: result.tablesFrom,
          catalog_tokens: catalog.tokens,
          catalog_chars: catalog.text.length,
          catalog_dropped_tables: catalog.droppedTables.length,
          collection: result.build.pointer.collection,
          embedder: result.build.pointer.embedderId,
          blurb_failures: result.build.blurbFailures.length,
          replaced_collections: result.build.replaced.length,
          seconds: Math.round((performance.now() - started) / 100) / 10,
        };
        if (options.json === true) {
          printJson(summary);
          return;
        }
        process.stdout.write(`${renderTable(['setting', 'value'], Object.entries(summary))}\n`);
      } finally {
        await warehouse.close();
        await vectorIndex.close();
        await store.close();
      }
    });
}
