/**
 * One discovery run on any warehouse URL (an isolated data directory), scored against a demo's planted
 * truths — as `assay eval` does, but on the engine and model given (the offline analyst by default).
 * Used by the offline-analyst tests on the DuckDB demos and by `npm run bench -- engines` on MariaDB
 * and ClickHouse.
 */
import { join } from 'node:path';
import { runDiscovery } from '../../src/cli/discovery-session.js';
import { composeRuntime } from '../../src/composition.js';
import { loadConfig } from '../../src/config/index.js';
import type { DemoKind, DemoTruths } from '../../src/demo/index.js';
import type { Claim, DiscoveryResult, ExplorationStep, Run } from '../../src/domain/index.js';
import { scoreRun, type EvalScore } from '../../src/eval/score.js';
import { silentLogger } from '../../src/logging/index.js';
import { tempDir } from './temp-dir.js';

export interface EngineDiscovery {
  score: EvalScore;
  run: Run;
  result: DiscoveryResult;
  steps: ExplorationStep[];
}

export async function discoverOn(
  warehouse: string,
  kind: DemoKind,
  truths: DemoTruths,
  maxSteps: number,
  llm = 'offline:analyst',
  /** Settings as `ASSAY_*` variables (e.g. a smaller mining budget); none by default. */
  env: Record<string, string> = {},
): Promise<EngineDiscovery> {
  const workDir = tempDir(`assay-engine-discovery-${kind}-`);
  const config = loadConfig({
    env,
    cwd: workDir,
    overrides: { dataDir: join(workDir, 'data'), warehouse, llm },
  });
  const outcome = await runDiscovery(
    config,
    {
      projectId: `engine-${kind}`,
      projectName: `engine ${kind}`,
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
  return { score: scoreRun(kind, truths.patterns, outcome.result, steps), run: outcome.run, result: outcome.result, steps };
}

/** The exploration queries that failed, with the engine's error: what a dialect gap looks like. */
export function failedQueries(steps: readonly ExplorationStep[]): Array<{ step: number; error: string; sql: string }> {
  return steps.flatMap((step) =>
    step.action === 'query' && step.error ? [{ step: step.step, error: step.error, sql: step.executed_query ?? step.query ?? '' }] : [],
  );
}

/**
 * A claim as the engines should agree on it: kind, metric, segment and comparison, without the
 * warehouse's schema name (`main.orders` on DuckDB is `assay_test.orders` elsewhere) and without the
 * counted values and test statistics.
 */
export function claimKey(claim: Claim): string {
  return JSON.stringify(claim, (key, value) => {
    if (key === 'table' && typeof value === 'string') return value.split('.').pop();
    if (key === 'test' || key === 'n' || key === 'observed' || key === 'values') return undefined;
    return value;
  });
}

/** The claims of a run's confirmed insights, by `claimKey`. */
export function confirmedClaims(result: DiscoveryResult): Set<string> {
  return new Set(
    result.insights
      .filter((insight) => insight.validation?.status === 'confirmed' && insight.claim !== undefined)
      .map((insight) => claimKey(insight.claim as Claim)),
  );
}
