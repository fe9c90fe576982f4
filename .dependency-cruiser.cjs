/**
 * The layering Assay keeps (docs/architecture.md, "Layout"). `npm run lint` fails when an import
 * breaks one of these rules; the message says which rule and why it exists.
 */
const ADAPTERS = [
  '^src/store/(embedded|postgres|mongo)',
  '^src/warehouse/(duckdb|postgres|mysql|clickhouse|bigquery|snowflake|files)/',
  '^src/llm/(providers|simulator|offline-analyst)/',
  '^src/llm/factory',
  '^src/embed/(local|openai|bedrock)',
  '^src/vector/(embedded|qdrant)',
  '^src/fleet/',
  '^src/composition',
  '^src/project-clients',
  '^src/secrets/',
  '^src/pack-files/directory',
];
/**
 * The layers, lowest first. A module may import its own layer and the layers below, never one above:
 * the nouns and errors at the bottom, the ports and adapters over them, the model layer, the schema and
 * compaction services, the engine, what the drivers share, then the drivers (fleet, workers, API) and the
 * CLI on top. Cycles inside a layer are caught by no-circular.
 */
const LAYERS = [
  ['domain', 'errors'],
  ['common', 'config', 'logging', 'secrets', 'concurrency'],
  ['warehouse', 'embed', 'vector', 'store', 'pack-files', 'demo'],
  ['llm'],
  ['schema', 'compaction'],
  ['discovery'],
  ['report', 'runs', 'project-clients', 'composition'],
  ['eval', 'fleet'],
  ['fleet/bullmq/workers', 'api'],
  ['cli'],
];
/** `src/<name>/` or `src/<name>.ts`; a name may be a folder inside another layer's (`fleet/bullmq/workers`). */
function layerPaths(names) {
  return names.map((name) => `^src/${name}(/|\\.ts$)`);
}
const LAYER_RULES = LAYERS.slice(0, -1).map((names, index) => {
  const higher = LAYERS.slice(index + 1).flat();
  return {
    name: `layer-${index}-imports-no-higher-layer`,
    severity: 'error',
    comment: `${names.join(', ')} may import only their own layer and those below; ${higher.join(', ')} sit above them (docs/architecture.md, "Layout").`,
    // a higher layer nested in this one's folder (the BullMQ worker process inside src/fleet) is not this layer
    from: { path: layerPaths(names), pathNot: layerPaths(higher) },
    to: { path: layerPaths(higher) },
  };
});

const SDKS = ['@anthropic-ai/sdk', 'openai', '@aws-sdk/', 'bullmq', 'ioredis', '@duckdb/', '^pg$', 'mysql2', '@clickhouse/', '@google-cloud/', 'snowflake-sdk', 'mongodb', '@qdrant/', 'hono', '@bull-board/'];

module.exports = {
  forbidden: [
    ...LAYER_RULES,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order matter and hide layering mistakes.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-imports-nothing-of-the-project',
      severity: 'error',
      comment: 'src/domain is the innermost layer: the nouns, as zod schemas. It may import only zod and itself.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'discovery-reaches-no-adapter',
      severity: 'error',
      comment: 'The engine (src/discovery) talks to ports only; adapters are chosen in src/composition.ts.',
      from: { path: '^src/discovery/' },
      to: { path: ADAPTERS },
    },
    {
      name: 'discovery-imports-no-sdk-or-queue',
      severity: 'error',
      comment: 'The engine must not depend on a provider SDK, a database driver or the job queue.',
      from: { path: '^src/discovery/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer'], path: SDKS.map((name) => `node_modules/${name.replace(/^\^|\$$/g, '')}`) },
    },
    {
      name: 'discovery-reads-no-files',
      severity: 'error',
      comment: 'The engine does no file I/O: packs come through the pack-file port (src/pack-files), its own prompts are compiled in.',
      from: { path: '^src/discovery/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?fs(/promises)?$' },
    },
    {
      name: 'adapters-do-not-import-the-engine',
      severity: 'error',
      comment: 'An adapter implements a port; it must not reach back into the engine or the drivers above it.',
      from: { path: ADAPTERS.filter((pattern) => !/fleet|composition|project-clients/.test(pattern)) },
      to: { path: ['^src/discovery/', '^src/api/', '^src/cli/', '^src/fleet/'] },
    },
    {
      name: 'library-code-does-not-import-drivers',
      severity: 'error',
      comment: 'Only the CLI, the API and the BullMQ workers drive the engine; lower layers never import them.',
      from: { path: '^src/(domain|discovery|compaction|schema|llm|embed|vector|warehouse|store|config|errors|logging|report|eval|runs|common)/' },
      to: { path: ['^src/cli/', '^src/api/', '^src/fleet/bullmq/workers/'] },
    },
    {
      name: 'not-to-test',
      severity: 'error',
      comment: 'Production code never imports test code.',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    parser: 'swc',
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
    combinedDependencies: true,
  },
};
