/**
 * Runs a full discovery with the offline analyst on a fresh demo warehouse (isolated data directory)
 * and scores it against the planted truths. Shared by the integration test and by hand:
 * `npx tsx test/integration/offline-analyst/demo-discovery.ts ecommerce 24`.
 */
import { join } from 'node:path';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { discoverOn, type EngineDiscovery } from '../../support/engine-discovery.js';
import { tempDir } from '../../support/temp-dir.js';

export type DemoKind = 'ecommerce' | 'gaming' | 'social';

export interface DemoDiscovery extends EngineDiscovery {
  elapsedMs: number;
}

/** `llm` defaults to the in-process offline analyst; pass e.g. an `openai-compatible:` spec to go over HTTP. */
export async function runDemoDiscovery(kind: DemoKind, maxSteps: number, llm = 'offline:analyst'): Promise<DemoDiscovery> {
  const started = performance.now();
  const demo = await generateDemoWarehouse({ kind, out: join(tempDir(`assay-offline-analyst-${kind}-`), `${kind}.duckdb`) });
  const outcome = await discoverOn(`duckdb:${demo.path}`, kind, demo.truths, maxSteps, llm);
  return { ...outcome, elapsedMs: Math.round(performance.now() - started) };
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
