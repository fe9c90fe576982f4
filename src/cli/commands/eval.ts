import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { scoreRun } from '../../eval/score.js';
import { ValidationError } from '../../errors/index.js';
import { composeRuntime } from '../../composition.js';
import { generateDemoWarehouse, readDemoTruths } from '../../warehouse/demo/index.js';
import { cliConfig, cliLogger, printJson, renderTable } from '../context.js';
import { runDiscovery } from '../discovery-session.js';

const EVAL_KINDS = ['ecommerce', 'gaming', 'social'] as const;
type EvalKind = (typeof EVAL_KINDS)[number];

export function register(program: Command): void {
  program
    .command('eval')
    .description('Run discovery on a fresh demo warehouse and score it against the planted truths')
    .requiredOption('--kind <kind>', `demo kind: ${EVAL_KINDS.join(', ')}`)
    .option('--max-steps <n>', 'exploration steps', (value) => Number.parseInt(value, 10), 24)
    .option('--json', 'print one JSON object instead of tables')
    .option('--out <dir>', 'where to keep the run artefacts (default: a temporary directory)')
    .option('--min-recall <share>', 'exit with code 1 when recall is below this share (0-1)', (value) => Number(value))
    .action(async (options: { kind: string; maxSteps: number; json?: boolean; out?: string; minRecall?: number }, command: Command) => {
      if (options.minRecall !== undefined && !(options.minRecall >= 0 && options.minRecall <= 1)) {
        throw new ValidationError(`--min-recall must be a share between 0 and 1, got "${String(options.minRecall)}"`, [
          { path: 'min-recall', message: 'between 0 and 1' },
        ]);
      }
      if (!(EVAL_KINDS as readonly string[]).includes(options.kind)) {
        throw new ValidationError(`--kind must be one of ${EVAL_KINDS.join(', ')}, got "${options.kind}"`, [
          { path: 'kind', message: 'unknown kind' },
        ]);
      }
      const kind = options.kind as EvalKind;
      // an isolated data directory: no previous context or feedback from other runs may help or hurt
      const workDir = mkdtempSync(join(tmpdir(), `assay-eval-${kind}-`));
      const demo = await generateDemoWarehouse({ kind, out: join(workDir, `${kind}.duckdb`) });
      const truths = await readDemoTruths(demo.truthsPath);
      const config = cliConfig(command, { dataDir: join(workDir, 'data'), warehouse: `duckdb:${demo.path}` });
      const outcome = await runDiscovery(
        config,
        {
          projectId: `eval-${kind}`,
          projectName: `eval ${kind}`,
          pack: kind,
          maxSteps: options.maxSteps,
          minSteps: 0,
          outDir: options.out ?? join(workDir, 'output'),
          quiet: options.json === true,
        },
        cliLogger(config),
      );
      const runtime = await composeRuntime(config, { logger: cliLogger(config) });
      const steps = await runtime.store.listSteps(outcome.run.id).finally(() => runtime.close());
      const score = scoreRun(kind, truths.patterns, outcome.result, steps);
      const belowThreshold = options.minRecall !== undefined && score.recall < options.minRecall;
      if (belowThreshold) process.exitCode = 1;
      if (options.json) {
        const { patterns: _patterns, ...summary } = score;
        printJson({ ...summary, ...(options.minRecall === undefined ? {} : { min_recall: options.minRecall, passed: !belowThreshold }) });
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
    });
}
