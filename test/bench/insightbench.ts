/**
 * `npm run bench -- insightbench`: every InsightBench flag in the development set
 * (`../shared/data/insightbench`, or `ASSAY_INSIGHTBENCH_DIR`) through `runInsightBenchFlag` with the
 * offline analyst and a small step budget, once with the harness's pack (INSIGHTBENCH_PACK_STRATEGY)
 * and once with the plain `general` pack for comparison in the same run. Reports per flag the honest
 * ROUGE-1 recall (mean over the ground truth), the template baseline and the lift over it, the raw
 * score of the old rule, insights, found, confirmed, run type and time; the means across flags and
 * the flags with at least one confirmed insight; writes `bench-results/insightbench.json`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../../src/cli/context.js';
import { runDiscovery } from '../../src/cli/discovery-session.js';
import { loadConfig } from '../../src/config/index.js';
import {
  INSIGHTBENCH_PACK_STRATEGY,
  type PackStrategy,
  RAW_SCORING_RULE,
  runInsightBenchFlag,
  SCORING_RULE,
} from '../../src/eval/insightbench/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { type Bench, round, writeBenchResult } from './bench.js';

/** Small enough for the whole set in a few minutes on two cores; the offline analyst rarely uses more. */
const MAX_STEPS = 16;
const LLM = 'offline:analyst';
const COMPARED_STRATEGY: PackStrategy = 'general';

function flagDirectory(): string {
  return resolve(process.env.ASSAY_INSIGHTBENCH_DIR ?? fileURLToPath(new URL('../../../shared/data/insightbench/', import.meta.url)));
}

/** `flag-9.json` before `flag-10.json`. */
function flagFiles(directory: string): string[] {
  const number = (name: string) => Number(/(\d+)/.exec(name)?.[1] ?? Number.NaN);
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort((left, right) => number(left) - number(right) || left.localeCompare(right))
    .map((name) => join(directory, name));
}

interface FlagRow {
  flag: string;
  /** The strategy asked for, and the one that made the pack (they differ after a fall-back). */
  pack: PackStrategy;
  pack_used: PackStrategy | null;
  /** The headline: the honest rule (found insights, stop words removed, text capped). */
  rouge1_recall_mean: number | null;
  template_baseline: number | null;
  lift_ratio: number | null;
  lift_difference: number | null;
  /** The rule before the honest one (every insight not rejected, stop words kept, uncapped). */
  raw_rouge1_recall_mean: number | null;
  ground_truth: number;
  insights: number;
  found: number;
  confirmed: number;
  adjusted: number;
  rejected: number;
  skipped: number;
  run_type: string;
  duration_s: number;
  error?: string;
}

interface StrategySummary {
  pack: PackStrategy;
  flags: number;
  failed: number;
  rouge1_recall_mean: number;
  template_baseline: number;
  lift_ratio: number | null;
  lift_difference: number;
  raw_rouge1_recall_mean: number;
  flags_with_confirmed: number;
  insights_total: number;
  confirmed_total: number;
  duration_s_total: number;
}

async function runFlag(flagPath: string, strategy: PackStrategy, workDir: string): Promise<FlagRow> {
  // no environment and no config file from the working directory: every flag runs on the same defaults
  const config = loadConfig({ env: {}, cwd: workDir, overrides: { llm: LLM, logLevel: 'silent' } });
  const started = process.hrtime.bigint();
  const flag =
    flagPath
      .split('/')
      .pop()
      ?.replace(/\.json$/, '') ?? flagPath;
  try {
    const report = await runInsightBenchFlag({
      flagPath,
      config,
      maxSteps: MAX_STEPS,
      outDir: join(workDir, strategy),
      discover: runDiscovery,
      logger: silentLogger,
      packStrategy: strategy,
      quiet: true,
    });
    return {
      flag: report.flag,
      pack: strategy,
      pack_used: report.pack.strategy,
      rouge1_recall_mean: report.scores.rouge1_recall_mean,
      template_baseline: report.scores.template_baseline.rouge1_recall_mean,
      lift_ratio: report.scores.lift.ratio,
      lift_difference: report.scores.lift.difference,
      raw_rouge1_recall_mean: report.scores.raw.rouge1_recall_mean,
      ground_truth: report.ground_truth.length,
      insights: report.counts.total,
      found: report.counts.found,
      confirmed: report.counts.confirmed,
      adjusted: report.counts.adjusted,
      rejected: report.counts.rejected,
      skipped: report.counts.skipped,
      run_type: report.run_type,
      duration_s: report.duration_s,
    };
  } catch (error) {
    return {
      flag,
      pack: strategy,
      pack_used: null,
      rouge1_recall_mean: null,
      template_baseline: null,
      lift_ratio: null,
      lift_difference: null,
      raw_rouge1_recall_mean: null,
      ground_truth: 0,
      insights: 0,
      found: 0,
      confirmed: 0,
      adjusted: 0,
      rejected: 0,
      skipped: 0,
      run_type: 'error',
      duration_s: round(Number(process.hrtime.bigint() - started) / 1e9, 2),
      error: (error as Error).message,
    };
  }
}

/** Mean over every flag; a flag that failed counts as 0 (leaving it out would raise the mean). */
function meanOf(rows: readonly FlagRow[], value: (row: FlagRow) => number | null): number {
  return rows.length === 0 ? 0 : round(rows.reduce((sum, row) => sum + (value(row) ?? 0), 0) / rows.length, 4);
}

function summarise(strategy: PackStrategy, rows: readonly FlagRow[]): StrategySummary {
  const scored = rows.filter((row) => row.rouge1_recall_mean !== null);
  const honest = meanOf(rows, (row) => row.rouge1_recall_mean);
  const baseline = meanOf(rows, (row) => row.template_baseline);
  return {
    pack: strategy,
    flags: rows.length,
    failed: rows.length - scored.length,
    rouge1_recall_mean: honest,
    template_baseline: baseline,
    // the lift of the means, scored the same way as one flag's
    lift_ratio: baseline > 0 ? round(honest / baseline, 4) : null,
    lift_difference: round(honest - baseline, 4),
    raw_rouge1_recall_mean: meanOf(rows, (row) => row.raw_rouge1_recall_mean),
    flags_with_confirmed: rows.filter((row) => row.confirmed > 0).length,
    insights_total: rows.reduce((sum, row) => sum + row.insights, 0),
    confirmed_total: rows.reduce((sum, row) => sum + row.confirmed, 0),
    duration_s_total: round(
      rows.reduce((sum, row) => sum + row.duration_s, 0),
      2,
    ),
  };
}

export const insightbenchBench: Bench = {
  name: 'insightbench',
  description: `InsightBench development flags with the offline analyst (${MAX_STEPS} steps): ROUGE-1 recall vs a template baseline, insights, confirmed; ${INSIGHTBENCH_PACK_STRATEGY} pack vs ${COMPARED_STRATEGY}`,
  async run() {
    const directory = flagDirectory();
    if (!existsSync(directory)) {
      process.stdout.write(`skipped: no InsightBench flags at ${directory} (set ASSAY_INSIGHTBENCH_DIR)\n`);
      return;
    }
    const flags = flagFiles(directory);
    const strategies = [...new Set<PackStrategy>([INSIGHTBENCH_PACK_STRATEGY, COMPARED_STRATEGY])];
    const workDir = await mkdtemp(join(tmpdir(), 'assay-bench-insightbench-'));
    const rows: FlagRow[] = [];
    try {
      for (const flagPath of flags) {
        for (const strategy of strategies) {
          const row = await runFlag(flagPath, strategy, workDir);
          rows.push(row);
          process.stdout.write(
            `  ${row.flag} [${strategy}]: ${row.error ? `error: ${row.error}` : `rouge-1 ${row.rouge1_recall_mean} (baseline ${row.template_baseline}, raw ${row.raw_rouge1_recall_mean}), ${row.insights} insights, ${row.found} found`} (${row.duration_s} s)\n`,
          );
        }
      }
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
    const summaries = strategies.map((strategy) =>
      summarise(
        strategy,
        rows.filter((row) => row.pack === strategy),
      ),
    );
    const primary = rows.filter((row) => row.pack === INSIGHTBENCH_PACK_STRATEGY);
    process.stdout.write(
      `${renderTable(
        [
          'flag',
          'pack used',
          'rouge-1',
          'template baseline',
          'lift ×',
          'lift Δ',
          'raw rouge-1',
          'insights',
          'found',
          'confirmed',
          'adjusted',
          'rejected',
          'skipped',
          'run type',
          'seconds',
        ],
        primary.map((row) => [
          row.flag,
          row.pack_used ?? '',
          row.rouge1_recall_mean ?? 'error',
          row.template_baseline ?? '',
          row.lift_ratio ?? 'n/a',
          row.lift_difference ?? '',
          row.raw_rouge1_recall_mean ?? '',
          row.insights,
          row.found,
          row.confirmed,
          row.adjusted,
          row.rejected,
          row.skipped,
          row.run_type,
          row.duration_s,
        ]),
      )}\n`,
    );
    for (const row of rows.filter((candidate) => candidate.error !== undefined))
      process.stdout.write(`${row.flag} [${row.pack}] failed: ${row.error}\n`);
    process.stdout.write(
      `${renderTable(
        [
          'pack',
          'flags',
          'failed',
          'rouge-1 mean',
          'template baseline',
          'lift ×',
          'lift Δ',
          'raw rouge-1',
          'flags with ≥1 confirmed',
          'insights',
          'confirmed',
          'seconds',
        ],
        summaries.map((summary) => [
          summary.pack,
          summary.flags,
          summary.failed,
          summary.rouge1_recall_mean,
          summary.template_baseline,
          summary.lift_ratio ?? 'n/a',
          summary.lift_difference,
          summary.raw_rouge1_recall_mean,
          summary.flags_with_confirmed,
          summary.insights_total,
          summary.confirmed_total,
          summary.duration_s_total,
        ]),
      )}\n`,
    );
    const [main] = summaries;
    process.stdout.write(
      `wrote ${writeBenchResult('insightbench', {
        llm: LLM,
        max_steps: MAX_STEPS,
        pack: INSIGHTBENCH_PACK_STRATEGY,
        flags: primary,
        rule: SCORING_RULE,
        raw_rule: RAW_SCORING_RULE,
        rouge1_recall_mean: main?.rouge1_recall_mean ?? 0,
        template_baseline: main?.template_baseline ?? 0,
        lift_ratio: main?.lift_ratio ?? null,
        lift_difference: main?.lift_difference ?? 0,
        raw_rouge1_recall_mean: main?.raw_rouge1_recall_mean ?? 0,
        flags_with_confirmed: main?.flags_with_confirmed ?? 0,
        summaries,
        compared: rows.filter((row) => row.pack !== INSIGHTBENCH_PACK_STRATEGY),
      })}\n`,
    );
  },
};
