import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { InsightBenchReport } from '../../eval/insightbench/index.js';
import { ValidationError } from '../../errors/index.js';
import { printJson, renderTable } from '../output.js';

const EVAL_KINDS = ['ecommerce', 'gaming', 'social'] as const;
type EvalKind = (typeof EVAL_KINDS)[number];

interface EvalOptions {
  kind?: string;
  insightbench?: string;
  llm?: string;
  maxSteps: string;
  json?: boolean;
  out: string;
  minRecall?: number;
}

async function evalDemo(kind: EvalKind, maxSteps: number, options: EvalOptions, command: Command): Promise<void> {
  // an isolated data directory: no previous context or feedback from other runs may help or hurt. It
  // holds the warehouse and the store only, and goes when the score is out; the artefacts go to --out.
  const workDir = mkdtempSync(join(tmpdir(), `assay-eval-${kind}-`));
  try {
    await scoreDemo(kind, maxSteps, workDir, options, command);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function scoreDemo(kind: EvalKind, maxSteps: number, workDir: string, options: EvalOptions, command: Command): Promise<void> {
  const [{ scoreRun }, { composeRuntime }, { generateDemoWarehouse }, { cliConfig, cliLogger }, { runDiscovery }] = await Promise.all([
    import('../../eval/score.js'),
    import('../../composition.js'),
    import('../../demo/index.js'),
    import('../context.js'),
    import('../discovery-session.js'),
  ]);
  const demo = await generateDemoWarehouse({ kind, out: join(workDir, `${kind}.duckdb`), truths: false });
  const { truths } = demo;
  const config = cliConfig(command, {
    dataDir: join(workDir, 'data'),
    warehouse: `duckdb:${demo.path}`,
    ...(options.llm ? { llm: options.llm } : {}),
  });
  const outcome = await runDiscovery(
    config,
    {
      projectId: `eval-${kind}`,
      projectName: `eval ${kind}`,
      pack: kind,
      maxSteps,
      minSteps: 0,
      outDir: options.out,
      quiet: options.json === true,
    },
    cliLogger(config, command),
  );
  const runtime = await composeRuntime(config, { logger: cliLogger(config, command) });
  const steps = await runtime.store.listSteps(outcome.run.id).finally(() => runtime.close());
  const score = scoreRun(kind, truths.patterns, outcome.result, steps);
  const belowThreshold = options.minRecall !== undefined && score.recall < options.minRecall;
  if (belowThreshold) process.exitCode = 1;
  if (options.json) {
    const { patterns: _patterns, ...summary } = score;
    printJson({
      ...summary,
      ...(options.minRecall === undefined ? {} : { min_recall: options.minRecall, passed: !belowThreshold }),
      run_id: outcome.run.id,
      report_path: outcome.reportPath,
      insights_total: summary.insights,
      // the output contract: every insight in ranked order, with its claim and validation (docs/api.md, "Insights")
      insights: outcome.result.insights,
    });
    return;
  }
  process.stdout.write(
    `${renderTable(
      ['pattern', 'area', 'found', 'claim recounted', 'insight', 'keywords matched'],
      score.patterns.map((match) => [
        match.pattern,
        match.area,
        match.found ? 'yes' : 'no',
        match.claim_checked ? 'yes' : 'no',
        match.insight_id ?? '',
        match.matched_keywords.join(', '),
      ]),
    )}\n`,
  );
  process.stdout.write(
    `${renderTable(
      [
        'kind',
        'planted',
        'found',
        'with recounted claim',
        'recall',
        'precision',
        'insights',
        'rejected',
        'confirmed share',
        'recommendations linked',
      ],
      [
        [
          score.kind,
          score.planted,
          score.found,
          score.found_with_checked_claim,
          score.recall,
          score.precision,
          score.insights,
          score.rejected,
          score.confirmed_share,
          score.recommendations_linked_share,
        ],
      ],
    )}\n`,
  );
  if (belowThreshold) process.stderr.write(`recall ${score.recall} is below --min-recall ${options.minRecall}\n`);
  process.stdout.write(`report: ${outcome.reportPath}\n`);
}

function printInsightBenchReport(report: InsightBenchReport): void {
  const verdicts = new Map((report.scores.judge?.verdicts ?? []).map((verdict) => [verdict.ground_truth_index, verdict]));
  const judged = report.scores.judge !== undefined;
  process.stdout.write(
    `${renderTable(
      ['#', 'ground truth', 'rouge-1 recall', 'best insight', 'template baseline', ...(judged ? ['judge', 'judged match'] : [])],
      report.scores.per_ground_truth.map((match, position) => {
        const verdict = verdicts.get(match.index);
        return [
          match.index + 1,
          match.ground_truth,
          match.rouge1_recall,
          match.best_insight_id ?? '',
          report.scores.template_baseline.per_ground_truth[position]?.rouge1_recall ?? '',
          ...(judged ? [verdict?.score ?? '', verdict?.insight_id ?? ''] : []),
        ];
      }),
    )}\n`,
  );
  const { counts, scores } = report;
  process.stdout.write(
    `${renderTable(
      ['flag', 'pack', 'run type', 'insights', 'found', 'confirmed', 'adjusted', 'rejected', 'unverified', 'error', 'seconds'],
      [
        [
          report.flag,
          `${report.pack.slug} (${report.pack.strategy})`,
          report.run_type,
          counts.total,
          counts.found,
          counts.confirmed,
          counts.adjusted,
          counts.rejected,
          counts.unverified + counts.skipped + counts.unvalidated,
          counts.error,
          report.duration_s,
        ],
      ],
    )}\n`,
  );
  process.stdout.write(
    `${renderTable(
      [
        'rouge-1 recall (mean)',
        'template baseline',
        'lift (×)',
        'lift (difference)',
        'raw rouge-1 (old rule)',
        ...(judged ? ['judge (mean)'] : []),
      ],
      [
        [
          scores.rouge1_recall_mean,
          scores.template_baseline.rouge1_recall_mean,
          scores.lift.ratio ?? 'n/a',
          scores.lift.difference,
          scores.raw.rouge1_recall_mean,
          ...(judged ? [scores.judge?.mean] : []),
        ],
      ],
    )}\n`,
  );
  process.stdout.write(
    `scored: ${scores.rule.found}; ${scores.rule.text}; stop words: ${scores.rule.stop_words}. Template baseline: ${scores.template_baseline.sentences.length} sentences from column names and top values.\n`,
  );
  process.stdout.write(`report: ${report.report_path}\n`);
}

async function evalInsightBench(flagPath: string, maxSteps: number, options: EvalOptions, command: Command): Promise<void> {
  const [{ runInsightBenchFlag }, { cliConfig, cliLogger }, { runDiscovery }] = await Promise.all([
    import('../../eval/insightbench/index.js'),
    import('../context.js'),
    import('../discovery-session.js'),
  ]);
  const config = cliConfig(command, options.llm ? { llm: options.llm } : {});
  const logger = cliLogger(config, command);
  const report = await runInsightBenchFlag({
    flagPath,
    config,
    maxSteps,
    outDir: options.out,
    discover: runDiscovery,
    logger,
    quiet: options.json === true,
    onNotice: (line) => process.stderr.write(`${line}\n`),
  });
  if (options.json) {
    printJson(report);
    return;
  }
  printInsightBenchReport(report);
}

export function register(program: Command): void {
  program
    .command('eval')
    .description(
      'Score discovery: on a fresh demo warehouse against its planted truths (--kind), or on an InsightBench flag against its ground-truth insights (--insightbench)',
    )
    .option('--kind <kind>', `demo kind: ${EVAL_KINDS.join(', ')}`)
    .option('--insightbench <flag.json>', 'an InsightBench flag file; its CSVs are read from beside it')
    .option('--llm <provider:model>', 'model for the run (default: config); with --insightbench a real model also judges the findings')
    .option('--max-steps <n>', 'exploration steps, 1-500', '24')
    .option('--json', 'print one JSON object instead of tables')
    .option(
      '--out <dir>',
      "where the run artefacts go (report.html, run.json, result.json under <dir>/<runId>/; with --insightbench also the flag's warehouse and pack)",
      'assay-output',
    )
    .option('--min-recall <share>', 'with --kind: exit with code 1 when recall is below this share (0-1)', (value) => Number(value))
    .action(async (options: EvalOptions, command: Command) => {
      if ((options.kind === undefined) === (options.insightbench === undefined)) {
        throw new ValidationError('give exactly one of --kind <kind> or --insightbench <flag.json>', [
          { path: 'kind', message: 'exactly one of --kind and --insightbench' },
        ]);
      }
      const { parseStepCount } = await import('../../common/run-limits.js');
      const maxSteps = parseStepCount('max_steps', '--max-steps', options.maxSteps);
      const { checkOutputDir } = await import('../output-dir.js');
      await checkOutputDir(options.out);
      if (options.minRecall !== undefined && !(options.minRecall >= 0 && options.minRecall <= 1)) {
        throw new ValidationError(`--min-recall must be a share between 0 and 1, got "${String(options.minRecall)}"`, [
          { path: 'min-recall', message: 'between 0 and 1' },
        ]);
      }
      if (options.insightbench !== undefined) {
        if (options.minRecall !== undefined)
          throw new ValidationError('--min-recall applies to --kind only', [{ path: 'min-recall', message: 'only with --kind' }]);
        await evalInsightBench(options.insightbench, maxSteps, options, command);
        return;
      }
      if (!(EVAL_KINDS as readonly string[]).includes(options.kind ?? '')) {
        throw new ValidationError(`--kind must be one of ${EVAL_KINDS.join(', ')}, got "${options.kind}"`, [
          { path: 'kind', message: 'unknown kind' },
        ]);
      }
      await evalDemo(options.kind as EvalKind, maxSteps, options, command);
    });
}
