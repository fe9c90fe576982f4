/**
 * Runs a full discovery with the offline analyst on a fresh demo warehouse (isolated data directory)
 * and scores it against the planted truths. Shared by the integration test and by hand:
 * `npx tsx test/integration/offline-analyst/demo-discovery.ts ecommerce 24`.
 */
import { join } from 'node:path';
import { runDiscovery } from '../../../src/cli/discovery-session.js';
import { composeRuntime } from '../../../src/composition.js';
import { loadConfig } from '../../../src/config/index.js';
import type { DiscoveryResult, ExplorationStep, Run } from '../../../src/domain/index.js';
import { scoreRun, type EvalScore } from '../../../src/eval/score.js';
import { silentLogger } from '../../../src/logging/index.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { tempDir } from '../../support/temp-dir.js';

export type DemoKind = 'ecommerce' | 'gaming' | 'social';

export interface DemoDiscovery {
  score: EvalScore;
  run: Run;
  result: DiscoveryResult;
  steps: ExplorationStep[];
  elapsedMs: number;
}

/** `llm` defaults to the in-process offline analyst; pass e.g. an `openai-compatible:` spec to go over HTTP. */
export async function runDemoDiscovery(kind: DemoKind, maxSteps: number, llm = 'offline:analyst'): Promise<DemoDiscovery> {
  const started = performance.now();
  const workDir = tempDir(`assay-offline-analyst-${kind}-`);
  const demo = await generateDemoWarehouse({ kind, out: join(workDir, `${kind}.duckdb`) });
  const truths = demo.truths;
  const config = loadConfig({
    env: {},
    cwd: workDir,
    overrides: { dataDir: join(workDir, 'data'), warehouse: `duckdb:${demo.path}`, llm },
  });
  const outcome = await runDiscovery(
    config,
    {
      projectId: `offline-${kind}`,
      projectName: `offline ${kind}`,
      pack: kind,
      maxSteps,
      minSteps: 0,
      outDir: join(workDir, 'output'),
      quiet: true,
    },
    silentLogger,
  );
  const runtime = await composeRuntime(config, { logger: silentLogger });
  const steps = await runtime.store.listSteps(outcome.run.id).finally(() => runtime.close());
  return {
    score: scoreRun(kind, truths.patterns, outcome.result, steps),
    run: outcome.run,
    result: outcome.result,
    steps,
    elapsedMs: Math.round(performance.now() - started),
  };
}

if (process.argv[1]?.endsWith('demo-discovery.ts')) {
  const kind = (process.argv[2] ?? 'ecommerce') as DemoKind;
  const maxSteps = Number(process.argv[3] ?? 24);
  const outcome = await runDemoDiscovery(kind, maxSteps);
  const verbose = process.argv.includes('--verbose');
  if (process.argv.includes('--dump'))
    await import('node:fs').then(({ writeFileSync }) =>
      writeFileSync(`/tmp/assay-offline-${kind}-steps.json`, JSON.stringify(outcome.steps, null, 1)),
    );
  if (verbose) {
    for (const step of outcome.steps)
      process.stdout.write(
        `#${step.step} ${step.action} ${step.query_purpose ?? ''} rows=${step.row_count ?? ''} ${step.error ? `ERROR ${step.error}` : ''}\n`,
      );
    for (const insight of outcome.result.insights)
      process.stdout.write(
        `- [${insight.id}] ${insight.severity} ${insight.name} | count=${insight.affected_count} verify=${insight.validation?.status}:${insight.validation?.verified_count} steps=${insight.source_steps.join(',')}\n`,
      );
    for (const recommendation of outcome.result.recommendations)
      process.stdout.write(`* ${recommendation.title} -> ${recommendation.related_insight_ids.join(',')}\n`);
    process.stdout.write(`run: ${outcome.run.status} ${outcome.run.error ?? ''}\n`);
  }
  const { patterns, ...summary } = outcome.score;
  process.stdout.write(
    `${JSON.stringify({ ...summary, elapsed_ms: outcome.elapsedMs, patterns: patterns.map((match) => `${match.pattern}: ${match.found ? 'FOUND' : 'missed'} [${match.matched_keywords.join(', ')}]`) }, null, 2)}\n`,
  );
}
