import { z } from 'zod';
import { STEP_LIMITS } from '../common/run-limits.js';

/**
 * Every setting Assay reads, with the default that makes the embedded mode work with no
 * environment at all. Environment variables win over the config file; the file wins over defaults.
 */
export const configSchema = z.object({
  /** Where the embedded store, vector index, schema cache and demo data live. */
  dataDir: z.string().min(1).default('.assay'),
  /** Warehouse URL: `duckdb:path/to/file.duckdb`, `duckdb::memory:`, `file:data/*.csv`, `postgres://…`, `mysql://…`, `clickhouse://…`, `bigquery://…`, `snowflake://…` (README). */
  warehouse: z.string().min(1).default('duckdb:.assay/demo-ecommerce.duckdb'),
  /** Files attached to a DuckDB warehouse as tables: `{ "table": "path.csv|parquet|json" }`. */
  warehouseFiles: z.record(z.string(), z.string()).default({}),
  /** LLM as `provider:model`, e.g. `anthropic:claude-sonnet-5-5`, `openai-compatible:http://localhost:11434/v1#qwen2.5`. */
  llm: z.string().min(1).default('offline:analyst'),
  /** Model for compaction and table blurbs (the `fast` tier). Defaults to `llm`. */
  fastLlm: z.string().min(1).optional(),
  /**
   * How answers are asked for: `auto` uses native tool calls or structured output where the model's catalog
   * entry has them, `text` always the JSON-in-text protocol (for servers whose tool support is broken).
   */
  llmProtocol: z.enum(['auto', 'text']).default('auto'),
  /** Mark cache breakpoints (Anthropic, Bedrock) and send a cache key (OpenAI), so repeated prompt prefixes bill at the cache price. */
  promptCaching: z.boolean().default(true),
  /** `local` (deterministic hashing, offline), `openai:<model>`, `openai-compatible:<url>#<model>`, `bedrock:<model>`. */
  embedder: z.string().min(1).default('local'),
  /** `embedded` or a Qdrant URL. */
  vectorIndex: z.string().min(1).default('embedded'),
  /** `embedded` (files, one process) or `postgres://…` (shared by a fleet); `ASSAY_STORE`. */
  store: z.string().min(1).default('embedded'),
  redisUrl: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** Where `secret:NAME` references of projects resolve: `env` (environment variables) or `dir:/path` (a mounted Secret volume). */
  secrets: z.string().min(1).default('env'),
  /** Per-project connection sets (warehouse, models, embedder) a process keeps open, least recently used closed first. */
  projectClients: z
    .object({
      maxOpen: z.number().int().min(1).max(256).default(8),
      /** Close a project's connection set after this long unused. */
      idleMs: z.number().int().min(1_000).default(300_000),
    })
    .default({ maxOpen: 8, idleMs: 300_000 }),
  /** The worker fleet (BullMQ on `redisUrl`). */
  fleet: z
    .object({
      /** Redis key prefix of every queue: KEDA's `listName` must be `{queuePrefix}:{queue}:wait`. */
      queuePrefix: z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
        .default('bull'),
      /** Comma-separated queues this worker process consumes; empty = all of them. */
      queues: z.string().default(''),
      /** Jobs in flight per queue in this process; unset = each queue's own default. */
      concurrency: z.number().int().min(1).max(256).optional(),
      /** How long shutdown waits for aborted jobs to hand back before forcing; keep below the pod's grace period. */
      shutdownTimeoutMs: z.number().int().min(1_000).default(25_000),
      /** Port of the worker's /healthz and /readyz endpoints; 0 = none. */
      healthPort: z.number().int().min(0).max(65_535).default(0),
      /** Job lock and stalled-check interval for every queue, overriding the queue contract (recovery time ≈ lock + interval). */
      lockDurationMs: z.number().int().min(1_000).optional(),
      stalledIntervalMs: z.number().int().min(500).optional(),
      /** How often the stuck-run reconciler and the orphan collection sweep run (queue `maintenance`). */
      reconcileIntervalMs: z.number().int().min(1_000).default(30_000),
      sweepIntervalMs: z.number().int().min(10_000).default(3_600_000),
      /** A run untouched this long with a failed or missing coordinator is stuck (the reconciler's grace). */
      stuckRunGraceMs: z.number().int().min(0).default(60_000),
    })
    .default({
      queuePrefix: 'bull',
      queues: '',
      shutdownTimeoutMs: 25_000,
      healthPort: 0,
      reconcileIntervalMs: 30_000,
      sweepIntervalMs: 3_600_000,
      stuckRunGraceMs: 60_000,
    }),
  /** The HTTP API's access rules and limits (docs/api.md, "Authentication" and "Limits"). */
  api: z
    .object({
      /** Serve /metrics without a key (for a Prometheus scraper inside the cluster). */
      publicMetrics: z.boolean().default(false),
      /** Request bodies on every route, the queue dashboard's included; 413 beyond, refused before the body is read. */
      maxBodyBytes: z
        .number()
        .int()
        .min(1_024)
        .max(64 * 1024 * 1024)
        .default(1024 * 1024),
      /** Runs one key may start per minute (429 with retry-after beyond). */
      runCreatesPerMinute: z.number().int().min(1).max(10_000).default(10),
      /** Open live-progress (SSE) streams per key. */
      maxStreamsPerKey: z.number().int().min(1).max(10_000).default(20),
      /** How long a queue-dashboard login lasts. */
      boardSessionSeconds: z.number().int().min(60).max(86_400).default(900),
      /**
       * Where a project created through the API may point. The served warehouse is always allowed;
       * anything else must match: DuckDB files under `duckdbRoots` (realpath), PostgreSQL
       * `host` or `host:port` in `postgresHosts`, MySQL/MariaDB and ClickHouse `host[:port]`,
       * `bigquery:PROJECT` and `snowflake:ACCOUNT` in `warehouseHosts`, LLM and embedder base URLs on `modelHosts`.
       */
      allow: z
        .object({
          duckdbRoots: z.array(z.string().min(1)).default([]),
          postgresHosts: z.array(z.string().min(1)).default([]),
          warehouseHosts: z.array(z.string().min(1)).default([]),
          modelHosts: z.array(z.string().min(1)).default([]),
        })
        .default({ duckdbRoots: [], postgresHosts: [], warehouseHosts: [], modelHosts: [] }),
    })
    .default({
      publicMetrics: false,
      maxBodyBytes: 1024 * 1024,
      runCreatesPerMinute: 10,
      maxStreamsPerKey: 20,
      boardSessionSeconds: 900,
      allow: { duckdbRoots: [], postgresHosts: [], warehouseHosts: [], modelHosts: [] },
    }),
  anthropicApiKey: z.string().optional(),
  anthropicBaseUrl: z.string().url().optional(),
  openaiApiKey: z.string().optional(),
  openaiBaseUrl: z.string().url().optional(),
  awsRegion: z.string().default('us-east-1'),
  bedrockEndpoint: z.string().url().optional(),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** `text` (one readable line per entry; `pretty` and `auto` mean the same) or `json` (pino JSON lines, for log collectors). */
  logFormat: z.enum(['text', 'json', 'pretty', 'auto']).default('auto'),
  run: z
    .object({
      maxSteps: z.number().int().min(STEP_LIMITS.max_steps.min).max(STEP_LIMITS.max_steps.max).default(40),
      minSteps: z.number().int().min(STEP_LIMITS.min_steps.min).max(STEP_LIMITS.min_steps.max).default(0),
      /** Per-area token budget for the rendered exploration digests (seed: 200,000). */
      analysisBudgetTokens: z.number().int().min(1_000).default(200_000),
      /** Concurrency of area analysis and verification in the in-process runner. */
      concurrency: z.number().int().min(1).max(64).default(4),
    })
    .default({ maxSteps: 40, minSteps: 0, analysisBudgetTokens: 200_000, concurrency: 4 }),
  sql: z
    .object({
      maxRows: z.number().int().min(1).max(1_000_000).default(10_000),
      timeoutMs: z.number().int().min(100).default(30_000),
      /** Bytes of result rows stored per exploration step. */
      maxStoredBytes: z
        .number()
        .int()
        .min(1_024)
        .default(256 * 1024),
      /**
       * Memory one query may use, in MiB (DuckDB `memory_limit` for the instance, ClickHouse `max_memory_usage`);
       * unset: 25 % of the container's memory (else the machine's), at most 1,024 MiB (docs/warehouses.md).
       */
      memoryLimitMb: z.number().int().min(64).optional(),
      /** Threads one query may use (DuckDB `threads`, ClickHouse `max_threads`); unset: the cores the container may use. */
      threads: z.number().int().min(1).max(256).optional(),
      /** Where DuckDB spills sorts and hash tables that exceed the memory limit; unset: a private directory under the OS temp directory. */
      tempDirectory: z.string().min(1).optional(),
    })
    .default({ maxRows: 10_000, timeoutMs: 30_000, maxStoredBytes: 256 * 1024 }),
  /** Insight mining (docs/mining.md): the statements it may run, its significance level, what it reports. */
  mining: z
    .object({
      /** False-discovery level of the Benjamini–Hochberg correction across a run. */
      fdr: z.number().gt(0).max(0.5).default(0.05),
      /** Rows a segment needs to be reported (smaller ones are still tested, never reported). */
      minSupport: z.number().int().min(2).default(10),
      /** Statements mining may run per run. */
      maxQueries: z.number().int().min(1).max(5_000).default(200),
      /** Wall time mining may take per run. */
      maxDurationMs: z.number().int().min(1_000).default(180_000),
      /** Tables profiled and mined per run (the largest ones). */
      maxTables: z.number().int().min(1).max(50).default(4),
      /** Insights kept per area after ranking. */
      insightsPerArea: z.number().int().min(1).max(20).default(5),
      /** Mined findings shown to the model per area. */
      findingsPerArea: z.number().int().min(1).max(60).default(12),
    })
    .default({ fdr: 0.05, minSupport: 10, maxQueries: 200, maxDurationMs: 180_000, maxTables: 4, insightsPerArea: 5, findingsPerArea: 12 }),
  /** How analysis sees the exploration evidence, and which model tier each phase uses. */
  compaction: z
    .object({
      /**
       * `digests`: every picked step's digest within the area budget. `telescope`: the run index, the
       * area's group and the best steps' digests, with drill-down (`{"expand": [ids]}`) for the rest.
       */
      evidence: z.enum(['digests', 'telescope']).default('digests'),
      /** Drill-down requests the model may make per area with telescoped evidence (0: a flat first view only). */
      maxExpansions: z.number().int().min(0).max(5).default(2),
      /** Model tier per phase: `strong` is ASSAY_LLM, `fast` is ASSAY_FAST_LLM (the same model when unset). */
      tiers: z
        .object({
          exploration: z.enum(['fast', 'strong']).default('strong'),
          analysis: z.enum(['fast', 'strong']).default('strong'),
          verification: z.enum(['fast', 'strong']).default('strong'),
          recommendations: z.enum(['fast', 'strong']).default('strong'),
          sql_fix: z.enum(['fast', 'strong']).default('fast'),
          compaction: z.enum(['fast', 'strong']).default('fast'),
        })
        .default({
          exploration: 'strong',
          analysis: 'strong',
          verification: 'strong',
          recommendations: 'strong',
          sql_fix: 'fast',
          compaction: 'fast',
        }),
    })
    .default({
      evidence: 'digests',
      maxExpansions: 2,
      tiers: {
        exploration: 'strong',
        analysis: 'strong',
        verification: 'strong',
        recommendations: 'strong',
        sql_fix: 'fast',
        compaction: 'fast',
      },
    }),
  /** Show the hidden system-test domain pack. */
  enableSystemTestPack: z.boolean().default(false),
  /** Per-model overrides of the model catalog: `{ "provider:model": { contextWindow, maxOutputTokens, ... } }`. */
  models: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});

export type AssayConfig = z.infer<typeof configSchema>;

/** Environment variable → config path. The only place env names live. */
export const ENV_BINDINGS: ReadonlyArray<{
  env: string;
  path: string[];
  kind: 'string' | 'int' | 'number' | 'bool' | 'json';
  secret?: boolean;
}> = [
  { env: 'ASSAY_DATA_DIR', path: ['dataDir'], kind: 'string' },
  { env: 'ASSAY_WAREHOUSE', path: ['warehouse'], kind: 'string', secret: true },
  { env: 'ASSAY_WAREHOUSE_FILES', path: ['warehouseFiles'], kind: 'json' },
  { env: 'ASSAY_LLM', path: ['llm'], kind: 'string' },
  { env: 'ASSAY_FAST_LLM', path: ['fastLlm'], kind: 'string' },
  { env: 'ASSAY_LLM_PROTOCOL', path: ['llmProtocol'], kind: 'string' },
  { env: 'ASSAY_PROMPT_CACHING', path: ['promptCaching'], kind: 'bool' },
  { env: 'ASSAY_EMBEDDER', path: ['embedder'], kind: 'string' },
  { env: 'QDRANT_URL', path: ['vectorIndex'], kind: 'string', secret: true },
  { env: 'MONGO_URL', path: ['store'], kind: 'string', secret: true },
  { env: 'ASSAY_STORE', path: ['store'], kind: 'string', secret: true },
  { env: 'REDIS_URL', path: ['redisUrl'], kind: 'string', secret: true },
  { env: 'ASSAY_SECRETS', path: ['secrets'], kind: 'string' },
  { env: 'ASSAY_PROJECT_CLIENTS_MAX', path: ['projectClients', 'maxOpen'], kind: 'int' },
  { env: 'ASSAY_QUEUE_PREFIX', path: ['fleet', 'queuePrefix'], kind: 'string' },
  { env: 'ASSAY_WORKER_QUEUES', path: ['fleet', 'queues'], kind: 'string' },
  { env: 'ASSAY_WORKER_CONCURRENCY', path: ['fleet', 'concurrency'], kind: 'int' },
  { env: 'ASSAY_WORKER_SHUTDOWN_TIMEOUT_MS', path: ['fleet', 'shutdownTimeoutMs'], kind: 'int' },
  { env: 'ASSAY_WORKER_HEALTH_PORT', path: ['fleet', 'healthPort'], kind: 'int' },
  { env: 'ASSAY_LOCK_DURATION_MS', path: ['fleet', 'lockDurationMs'], kind: 'int' },
  { env: 'ASSAY_STALLED_INTERVAL_MS', path: ['fleet', 'stalledIntervalMs'], kind: 'int' },
  { env: 'ASSAY_RECONCILE_INTERVAL_MS', path: ['fleet', 'reconcileIntervalMs'], kind: 'int' },
  { env: 'ASSAY_SWEEP_INTERVAL_MS', path: ['fleet', 'sweepIntervalMs'], kind: 'int' },
  { env: 'ASSAY_STUCK_RUN_GRACE_MS', path: ['fleet', 'stuckRunGraceMs'], kind: 'int' },
  { env: 'ASSAY_API_PUBLIC_METRICS', path: ['api', 'publicMetrics'], kind: 'bool' },
  { env: 'ASSAY_API_MAX_BODY_BYTES', path: ['api', 'maxBodyBytes'], kind: 'int' },
  { env: 'ASSAY_API_RUNS_PER_MINUTE', path: ['api', 'runCreatesPerMinute'], kind: 'int' },
  { env: 'ASSAY_API_STREAMS_PER_KEY', path: ['api', 'maxStreamsPerKey'], kind: 'int' },
  { env: 'ASSAY_API_ALLOW', path: ['api', 'allow'], kind: 'json' },
  { env: 'ANTHROPIC_API_KEY', path: ['anthropicApiKey'], kind: 'string', secret: true },
  { env: 'ANTHROPIC_BASE_URL', path: ['anthropicBaseUrl'], kind: 'string' },
  { env: 'OPENAI_API_KEY', path: ['openaiApiKey'], kind: 'string', secret: true },
  { env: 'OPENAI_BASE_URL', path: ['openaiBaseUrl'], kind: 'string' },
  { env: 'AWS_REGION', path: ['awsRegion'], kind: 'string' },
  { env: 'ASSAY_BEDROCK_ENDPOINT', path: ['bedrockEndpoint'], kind: 'string' },
  { env: 'LOG_LEVEL', path: ['logLevel'], kind: 'string' },
  { env: 'ASSAY_LOG_FORMAT', path: ['logFormat'], kind: 'string' },
  { env: 'ASSAY_MAX_STEPS', path: ['run', 'maxSteps'], kind: 'int' },
  { env: 'ASSAY_MIN_STEPS', path: ['run', 'minSteps'], kind: 'int' },
  { env: 'ASSAY_ANALYSIS_BUDGET_TOKENS', path: ['run', 'analysisBudgetTokens'], kind: 'int' },
  { env: 'ASSAY_CONCURRENCY', path: ['run', 'concurrency'], kind: 'int' },
  { env: 'ASSAY_SQL_MAX_ROWS', path: ['sql', 'maxRows'], kind: 'int' },
  { env: 'ASSAY_SQL_TIMEOUT_MS', path: ['sql', 'timeoutMs'], kind: 'int' },
  { env: 'ASSAY_SQL_MEMORY_LIMIT_MB', path: ['sql', 'memoryLimitMb'], kind: 'int' },
  { env: 'ASSAY_SQL_THREADS', path: ['sql', 'threads'], kind: 'int' },
  { env: 'ASSAY_SQL_TEMP_DIRECTORY', path: ['sql', 'tempDirectory'], kind: 'string' },
  { env: 'ASSAY_ENABLE_SYSTEM_TEST', path: ['enableSystemTestPack'], kind: 'bool' },
  { env: 'ASSAY_ANALYSIS_EVIDENCE', path: ['compaction', 'evidence'], kind: 'string' },
  { env: 'ASSAY_MINING_FDR', path: ['mining', 'fdr'], kind: 'number' },
  { env: 'ASSAY_MINING_MIN_SUPPORT', path: ['mining', 'minSupport'], kind: 'int' },
  { env: 'ASSAY_MINING_MAX_QUERIES', path: ['mining', 'maxQueries'], kind: 'int' },
  { env: 'ASSAY_MINING_MAX_DURATION_MS', path: ['mining', 'maxDurationMs'], kind: 'int' },
  { env: 'ASSAY_MINING_MAX_TABLES', path: ['mining', 'maxTables'], kind: 'int' },
  { env: 'ASSAY_INSIGHTS_PER_AREA', path: ['mining', 'insightsPerArea'], kind: 'int' },
  { env: 'ASSAY_MAX_EXPANSIONS', path: ['compaction', 'maxExpansions'], kind: 'int' },
  { env: 'ASSAY_PHASE_TIERS', path: ['compaction', 'tiers'], kind: 'json' },
];
