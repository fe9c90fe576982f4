/**
 * One InsightBench flag end to end: its CSVs into a new DuckDB file, a project carrying the flag's
 * goal, persona and dataset description, a pack (see pack-choice.ts), a discovery run in this process,
 * and the run's insights scored against the flag's ground truth.
 *
 * The discovery driver is passed in (`discover`, the CLI's `runDiscovery`): library code does not
 * import the command-line layer, and the harness only needs a function with that shape.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bindLlm, composeRuntime } from '../../composition.js';
import type { AssayConfig } from '../../config/index.js';
import type { LlmBinding } from '../../discovery/context.js';
import { projectSchema, type DiscoveryResult, type Insight, type Run } from '../../domain/index.js';
import { parseLlmSpec } from '../../llm/factory.js';
import { createOfflineAnalyst } from '../../llm/offline-analyst/index.js';
import type { Logger } from '../../logging/index.js';
import { discoverSchema } from '../../schema/index.js';
import { flagProfile, loadInsightBenchFlag, type GroundTruthInsight, type InsightBenchFlag } from './flag.js';
import { judgeFindings, type JudgeOutcome } from './judge.js';
import { choosePack, INSIGHTBENCH_PACK_STRATEGY, type PackChoice, type PackStrategy } from './pack-choice.js';
import { countStatuses, judgedFindings, scoreRouge, type GroundTruthMatch, type StatusCounts } from './score.js';
import { buildFlagWarehouse, type LoadedTable } from './warehouse.js';

/** What the harness asks of the discovery driver (a subset of the CLI's discovery request). */
export interface FlagDiscoveryRequest {
  projectId: string;
  projectName: string;
  pack: string;
  maxSteps: number;
  minSteps: number;
  outDir: string;
  quiet?: boolean;
}

export type FlagDiscovery = (
  config: AssayConfig,
  request: FlagDiscoveryRequest,
  logger: Logger,
) => Promise<{ run: Run; result: DiscoveryResult; reportPath: string }>;

export interface InsightBenchOptions {
  flagPath: string;
  /** Settings of the run; its warehouse and data directory are replaced by the flag's own. */
  config: AssayConfig;
  maxSteps: number;
  /** Parent of the run's working directory. @defaultValue the system's temporary directory */
  outDir?: string | undefined;
  discover: FlagDiscovery;
  logger: Logger;
  /** @defaultValue INSIGHTBENCH_PACK_STRATEGY */
  packStrategy?: PackStrategy;
  /** No progress display. */
  quiet?: boolean;
  /** Told about fall-backs and skipped scores (one line each). */
  onNotice?: (line: string) => void;
}

export interface InsightBenchInsight {
  id: string;
  analysis_area: string;
  name: string;
  description: string;
  target_segment: string;
  indicators: string[];
  severity: Insight['severity'];
  validation: { status: NonNullable<Insight['validation']>['status'] | 'unvalidated'; reasoning: string };
}

export interface InsightBenchReport {
  flag: string;
  flag_path: string;
  goal: string;
  role: string;
  llm: string;
  max_steps: number;
  run_id: string;
  run_type: DiscoveryResult['run_type'];
  run_status: Run['status'];
  /** `requested`: the strategy asked for; `strategy`: the one that produced the pack (differs after a fall-back). */
  pack: Omit<PackChoice, 'profile'> & { requested: PackStrategy };
  tables: Array<Omit<LoadedTable, 'file'>>;
  counts: StatusCounts;
  insights: InsightBenchInsight[];
  ground_truth: GroundTruthInsight[];
  scores: {
    rouge1_recall_mean: number;
    per_ground_truth: GroundTruthMatch[];
    /** Present when a real model judged the findings. */
    judge?: JudgeOutcome;
    /** Why there is no judge score. */
    judge_skipped?: string;
  };
  duration_s: number;
  work_dir: string;
  report_path: string;
}

/** Project ids allow letters, digits, `_` and `-` (at most 64). */
function projectIdFor(flag: InsightBenchFlag): string {
  return `insightbench-${flag.name}`.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 64);
}

function workDirectory(flag: InsightBenchFlag, outDir: string | undefined): string {
  // a fresh directory per invocation: no previous context or feedback from an earlier run may help or hurt
  if (outDir === undefined) return mkdtempSync(join(tmpdir(), `assay-insightbench-${flag.name}-`));
  mkdirSync(resolve(outDir), { recursive: true });
  return mkdtempSync(join(resolve(outDir), `${flag.name}-`));
}

function reportedInsight(insight: Insight): InsightBenchInsight {
  return {
    id: insight.id,
    analysis_area: insight.analysis_area,
    name: insight.name,
    description: insight.description,
    target_segment: insight.target_segment,
    indicators: insight.indicators,
    severity: insight.severity,
    validation: { status: insight.validation?.status ?? 'unvalidated', reasoning: insight.validation?.reasoning ?? '' },
  };
}

function requestedStrategy(options: Pick<InsightBenchOptions, 'packStrategy'>): PackStrategy {
  return options.packStrategy ?? INSIGHTBENCH_PACK_STRATEGY;
}

/** Chooses the pack and stores the project, on a runtime opened only for that. */
async function prepareProject(
  flag: InsightBenchFlag,
  config: AssayConfig,
  options: InsightBenchOptions,
  workDir: string,
  llm: LlmBinding | undefined,
): Promise<PackChoice> {
  const runtime = await composeRuntime(config, { logger: options.logger });
  try {
    const tables = await discoverSchema(runtime.warehouse);
    const pack = await choosePack({
      strategy: requestedStrategy(options),
      tables,
      name: flag.name,
      describe: flag.datasetDescription,
      goal: flag.goal,
      directory: join(workDir, 'pack'),
      llm,
      onNotice: options.onNotice,
    });
    const now = runtime.now().toISOString();
    // the discovery session keeps a stored project's description and profile and sets the rest
    await runtime.store.upsertProject(
      projectSchema.parse({
        id: projectIdFor(flag),
        name: `InsightBench ${flag.name}`,
        description: flag.datasetDescription,
        domain: pack.ref,
        warehouse: { url: config.warehouse },
        llm: config.llm,
        embedder: config.embedder,
        profile: flagProfile(flag, pack.profile),
        created_at: now,
        updated_at: now,
      }),
    );
    return pack;
  } finally {
    await runtime.close();
  }
}

export async function runInsightBenchFlag(options: InsightBenchOptions): Promise<InsightBenchReport> {
  const started = process.hrtime.bigint();
  const flag = loadInsightBenchFlag(options.flagPath);
  const workDir = workDirectory(flag, options.outDir);
  const warehousePath = join(workDir, `${flag.name}.duckdb`);
  const tables = await buildFlagWarehouse(warehousePath, flag.tables);
  const config: AssayConfig = {
    ...options.config,
    dataDir: join(workDir, 'data'),
    warehouse: `duckdb:${warehousePath}`,
    warehouseFiles: {},
  };
  const offline = parseLlmSpec(config.llm).provider === 'offline';
  // the offline analyst answers neither pack-generation nor judge prompts: both need a real model
  const llm = offline ? undefined : bindLlm(config.llm, config, options.logger, createOfflineAnalyst());

  const pack = await prepareProject(flag, config, options, workDir, llm);
  const outcome = await options.discover(
    config,
    {
      projectId: projectIdFor(flag),
      projectName: `InsightBench ${flag.name}`,
      pack: pack.ref,
      maxSteps: options.maxSteps,
      minSteps: 0,
      outDir: join(workDir, 'output'),
      ...(options.quiet ? { quiet: true } : {}),
    },
    options.logger,
  );

  const insights = outcome.result.insights;
  const rouge = scoreRouge(flag.groundTruth, insights);
  let judge: JudgeOutcome | undefined;
  let judgeSkipped: string | undefined;
  if (llm) {
    judge = await judgeFindings({
      binding: llm,
      groundTruth: flag.groundTruth,
      findings: judgedFindings(insights),
    });
  } else {
    judgeSkipped = `judge score skipped: ${config.llm} is offline (give --llm a real model to judge the findings)`;
    options.onNotice?.(judgeSkipped);
  }
  const { profile: _profile, ...packSummary } = pack;
  return {
    flag: flag.name,
    flag_path: flag.path,
    goal: flag.goal,
    role: flag.role,
    llm: config.llm,
    max_steps: options.maxSteps,
    run_id: outcome.run.id,
    run_type: outcome.result.run_type,
    run_status: outcome.run.status,
    pack: { requested: requestedStrategy(options), ...packSummary },
    tables: tables.map(({ file: _file, ...table }) => table),
    counts: countStatuses(insights),
    insights: insights.map(reportedInsight),
    ground_truth: flag.groundTruth,
    scores: { ...rouge, ...(judge ? { judge } : {}), ...(judgeSkipped ? { judge_skipped: judgeSkipped } : {}) },
    duration_s: Math.round(Number(process.hrtime.bigint() - started) / 1e7) / 100,
    work_dir: workDir,
    report_path: outcome.reportPath,
  };
}
