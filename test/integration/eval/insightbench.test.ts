import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDiscovery } from '../../../src/cli/discovery-session.js';
import { composeRuntime } from '../../../src/composition.js';
import { loadConfig } from '../../../src/config/index.js';
import { JUDGE_INSTRUCTIONS, loadInsightBenchFlag, runInsightBenchFlag } from '../../../src/eval/insightbench/index.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { startLlmSimulator, type LlmSimulator } from '../../../src/llm/simulator/index.js';
import { silentLogger } from '../../../src/logging/index.js';
import { expectInsightContract } from '../../support/insight-contract.js';

/** The development set shipped beside the project (MIT, ServiceNow); flag 14 has two tables. */
const flagPath = resolve(
  process.env.ASSAY_INSIGHTBENCH_DIR ?? fileURLToPath(new URL('../../../../shared/data/insightbench/', import.meta.url)),
  'flag-14.json',
);
const available = existsSync(flagPath);
if (!available) console.log(`skipped: no InsightBench flag at ${flagPath} (set ASSAY_INSIGHTBENCH_DIR)`);

const MAX_STEPS = 12;
let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'assay-insightbench-test-'));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const configFor = (llm: string) => loadConfig({ env: {}, cwd: workDir, overrides: { llm, logLevel: 'silent' } });

describe.skipIf(!available)('when an InsightBench flag runs end to end with the offline analyst', () => {
  it('loads both CSVs, runs discovery on a project carrying the flag, and scores every ground truth', async () => {
    const notices: string[] = [];
    const config = configFor('offline:analyst');
    const report = await runInsightBenchFlag({
      flagPath,
      config,
      maxSteps: MAX_STEPS,
      outDir: join(workDir, 'offline'),
      discover: runDiscovery,
      logger: silentLogger,
      quiet: true,
      onNotice: (line) => notices.push(line),
    });
    const flag = loadInsightBenchFlag(flagPath);
    console.log(
      `insightbench flag-14 offline: rouge-1 ${report.scores.rouge1_recall_mean}, ${report.counts.total} insights, ${report.counts.confirmed} confirmed, ${report.run_type}, ${report.duration_s} s`,
    );

    expect(report.tables).toEqual([
      { table: 'flag_14', rows: 500, columns: 13 },
      { table: 'flag_14_sysuser', rows: 5, columns: 10 },
    ]);
    expect(report.run_status).toBe('completed');
    expect(['full', 'partial']).toContain(report.run_type);
    expect(report.pack).toMatchObject({ requested: 'generated', strategy: 'generated', generator: 'offline' });
    expect(report.ground_truth).toEqual(flag.groundTruth);
    expect(report.insights.length).toBe(report.counts.total);
    expect(report.counts.found).toBe(report.insights.filter((insight) => insight.found).length);
    expectInsightContract(report.insights, 'eval --insightbench report');

    // the score is recomputable from what the report shows, and only found insights compete
    const perTruth = report.scores.per_ground_truth;
    expect(perTruth.map((match) => match.ground_truth)).toEqual(flag.groundTruth.map((truth) => truth.insight));
    const mean = perTruth.reduce((sum, match) => sum + match.rouge1_recall, 0) / perTruth.length;
    expect(report.scores.rouge1_recall_mean).toBeCloseTo(mean, 3);
    const foundIds = report.insights.filter((insight) => insight.found).map((insight) => insight.id);
    for (const match of perTruth) expect(match.best_insight_id === null || foundIds.includes(match.best_insight_id)).toBe(true);
    for (const insight of report.insights.filter((candidate) => candidate.found))
      expect(insight.validation?.status === 'confirmed' || insight.validation?.text_rerendered === true).toBe(true);

    // beside it: the template baseline from both tables' columns, the lift, and the raw score of the old rule
    const { template_baseline: baseline, lift, raw } = report.scores;
    expect(baseline.sentences.length).toBeGreaterThan(10);
    expect(baseline.sentences.some((sentence) => sentence.startsWith('category is mostly '))).toBe(true);
    expect(baseline.per_ground_truth).toHaveLength(flag.groundTruth.length);
    expect(lift.difference).toBeCloseTo(report.scores.rouge1_recall_mean - baseline.rouge1_recall_mean, 3);
    if (baseline.rouge1_recall_mean > 0) expect(lift.ratio).toBeCloseTo(report.scores.rouge1_recall_mean / baseline.rouge1_recall_mean, 3);
    expect(raw.per_ground_truth).toHaveLength(flag.groundTruth.length);
    expect(report.scores.rule.stop_words).toMatch(/^stopword \(npm\) eng list/);

    // no real model: no judge, and the reason is given
    expect(report.scores.judge).toBeUndefined();
    expect(report.scores.judge_skipped).toMatch(/offline/);
    expect(notices).toContain(report.scores.judge_skipped);

    // the project the run used carries the flag's description, goal and persona
    const runtime = await composeRuntime(
      { ...config, dataDir: join(report.work_dir, 'data'), warehouse: `duckdb:${join(report.work_dir, 'flag-14.duckdb')}` },
      { logger: silentLogger },
    );
    const project = await runtime.store.getProject('insightbench-flag-14').finally(() => runtime.close());
    expect(project?.description).toBe(flag.datasetDescription);
    expect(project?.profile.basic_info).toMatchObject({ goal: flag.goal, audience: flag.role });
    expect(project?.domain).toBe(report.pack.ref);
  }, 30_000);
});

describe.skipIf(!available)('when a real model is configured (the offline analyst behind the LLM simulator)', () => {
  let simulator: LlmSimulator;
  const judged: string[] = [];

  beforeAll(async () => {
    const analyst = createOfflineAnalyst();
    simulator = await startLlmSimulator({
      brain: (call) => {
        if (!call.system.startsWith(JUDGE_INSTRUCTIONS))
          return analyst({ system: call.system, messages: call.messages, maxOutputTokens: call.maxOutputTokens });
        // the judge's question: note which ground truth was asked about and name the first finding
        judged.push(call.messages.at(-1)?.content.split('\n')[1] ?? '');
        return '{"match": 1, "reason": "the first finding"}';
      },
    });
  });

  afterAll(async () => {
    await simulator?.close();
  });

  it('asks the judge once per ground truth through the provider and maps its answer to the first scored insight', async () => {
    const report = await runInsightBenchFlag({
      flagPath,
      config: configFor(`openai-compatible:${simulator.url}/v1#analyst-sim`),
      maxSteps: MAX_STEPS,
      outDir: join(workDir, 'judged'),
      discover: runDiscovery,
      logger: silentLogger,
      quiet: true,
    });
    const flag = loadInsightBenchFlag(flagPath);
    const firstScored = report.insights.find((insight) => insight.found);
    expect(firstScored).toBeDefined();
    expect(report.scores.judge_skipped).toBeUndefined();
    expect(judged).toEqual(flag.groundTruth.map((truth) => truth.insight));
    expect(report.scores.judge).toMatchObject({ calls: flag.groundTruth.length, unusable_replies: 0, mean: 1 });
    expect(report.scores.judge?.verdicts.map((verdict) => verdict.insight_id)).toEqual(flag.groundTruth.map(() => firstScored?.id));
  }, 30_000);
});
