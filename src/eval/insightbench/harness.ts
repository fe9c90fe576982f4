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
import type { LlmBinding } from '../../llm/catalog.js';
import { projectSchema, type DiscoveryResult, type Insight, type Run } from '../../domain/index.js';
import { parseLlmSpec } from '../../llm/factory.js';
import { createOfflineAnalyst } from '../../llm/offline-analyst/index.js';
import type { Logger } from '../../logging/index.js';
import { createTableSampler, discoverSchema } from '../../schema/index.js';
import { flagProfile, loadInsightBenchFlag, type GroundTruthInsight, type InsightBenchFlag } from './flag.js';
import { judgeFindings, type JudgeOutcome } from './judge.js';
import { choosePack, INSIGHTBENCH_PACK_STRATEGY, type PackChoice, type PackStrategy } from './pack-choice.js';
import {
  countStatuses,
  type GroundTruthMatch,
  isFound,
  judgedFindings,
  type Lift,
  liftOver,
  RAW_SCORING_RULE,
  SCORING_RULE,
  scoreRouge,
  scoreRougeRaw,
  scoreTemplateSentences,
  type StatusCounts,
} from './score.js';
import { templateSentences } from './template-baseline.js';
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

/**
 * An insight as the report lists it (in the run's ranked order): its text, its claim and the whole
 * validation block (status, recount with both values, p-value and n on each side, reasoning), the
 * output contract of docs/api.md, "Insights". `validation` is null only when verification never ran.
 */
export type InsightBenchInsight = Pick<
  Insight,
  'id' | 'analysis_area' | 'name' | 'description' | 'target_segment' | 'indicators' | 'severity' | 'claim' | 'supporting_claims'
> & {
  validation: NonNullable<Insight['validation']> | null;
  /** Counted as found by the honest rule (confirmed, or adjusted with its text re-rendered). */
  found: boolean;
};

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
  tables: Array<Omit<LoadedTable, 'file' | 'top_values'>>;
  counts: StatusCounts;
  insights: InsightBenchInsight[];
  ground_truth: GroundTruthInsight[];
  scores: {
    /** How the headline score is computed (stop words, text cap, which insights count as found). */
    rule: typeof SCORING_RULE;
    /** The headline: ROUGE-1 recall by the honest rule, mean over the ground truth. */
    rouge1_recall_mean: number;
    per_ground_truth: GroundTruthMatch[];
    /** Sentences made only from column names and top values, scored by the same rule. */
    template_baseline: { rouge1_recall_mean: number; sentences: string[]; per_ground_truth: GroundTruthMatch[] };
    /** The headline over the template baseline. */
    lift: Lift;
    /** The rule before the honest one, kept so earlier figures stay comparable; not the headline. */
    raw: { rouge1_recall_mean: number; rule: string; per_ground_truth: GroundTruthMatch[] };
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
    ...(insight.claim ? { claim: insight.claim } : {}),
    supporting_claims: insight.supporting_claims,
    validation: insight.validation ?? null,
    found: isFound(insight),
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
      samples: createTableSampler({ warehouse: runtime.warehouse }),
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
  const sentences = templateSentences(tables.flatMap((table) => table.top_values));
  const baseline = scoreTemplateSentences(flag.groundTruth, sentences);
  const raw = scoreRougeRaw(flag.groundTruth, insights);
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
    tables: tables.map(({ file: _file, top_values: _topValues, ...table }) => table),
    counts: countStatuses(insights),
    insights: insights.map(reportedInsight),
    ground_truth: flag.groundTruth,
    scores: {
      rule: SCORING_RULE,
      ...rouge,
      template_baseline: { rouge1_recall_mean: baseline.rouge1_recall_mean, sentences, per_ground_truth: baseline.per_ground_truth },
      lift: liftOver(rouge.rouge1_recall_mean, baseline.rouge1_recall_mean),
      raw: { rouge1_recall_mean: raw.rouge1_recall_mean, rule: RAW_SCORING_RULE, per_ground_truth: raw.per_ground_truth },
      ...(judge ? { judge } : {}),
      ...(judgeSkipped ? { judge_skipped: judgeSkipped } : {}),
    },
    duration_s: Math.round(Number(process.hrtime.bigint() - started) / 1e7) / 100,
    work_dir: workDir,
    report_path: outcome.reportPath,
  };
}
