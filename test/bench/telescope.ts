/**
 * `npm run bench -- telescope`: analysis from raw-but-budgeted evidence (every picked step's digest,
 * `compaction.evidence: digests`) against telescoped evidence (index + area group + the best steps'
 * digests, with drill-down) on the demo warehouses, same data and same model (the offline analyst).
 * Reports analysis prompt tokens (every call, expansions included), insights, planted-pattern recall,
 * confirmed share, drill-down use, and the compaction cache on a second telescoped run over the same
 * data; writes `bench-results/telescope.json`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderTable } from '../../src/cli/context.js';
import { runDiscovery } from '../../src/cli/discovery-session.js';
import { composeRuntime } from '../../src/composition.js';
import { loadConfig } from '../../src/config/index.js';
import { scoreRun } from '../../src/eval/score.js';
import { silentLogger } from '../../src/logging/index.js';
import { generateDemoWarehouse } from '../../src/demo/index.js';
import { type Bench, round, writeBenchResult } from './bench.js';

const KINDS = ['ecommerce', 'gaming', 'social'] as const;
/** `telescope-flat`: the first view only, no drill-down (compaction.maxExpansions 0). */
const MODES = ['digests', 'telescope', 'telescope-flat'] as const;
const MAX_STEPS = 24;

interface ModeRow {
  kind: string;
  evidence: (typeof MODES)[number];
  analysis_calls: number;
  analysis_prompt_tokens: number;
  insights: number;
  recall: number;
  confirmed_share: number;
  drill_down_calls: number;
  expanded_nodes: number;
}

export const telescopeBench: Bench = {
  name: 'telescope',
  description: 'digests vs telescoped evidence on the demo warehouses: tokens, insights, recall, confirm rate, cache reuse',
  async run() {
    const rows: ModeRow[] = [];
    const cacheRows: {
      kind: string;
      first_run_hits: number;
      first_run_misses: number;
      second_run_hits: number;
      second_run_misses: number;
    }[] = [];
    for (const kind of KINDS) {
      const workDir = await mkdtemp(join(tmpdir(), `assay-bench-telescope-${kind}-`));
      try {
        const demo = await generateDemoWarehouse({ kind, out: join(workDir, `${kind}.duckdb`) });
        const truths = demo.truths;
        for (const evidence of MODES) {
          const runs = evidence === 'telescope' ? 2 : 1;
          const compaction =
            evidence === 'digests' ? { evidence } : { evidence: 'telescope', maxExpansions: evidence === 'telescope' ? 2 : 0 };
          for (let attempt = 1; attempt <= runs; attempt += 1) {
            // the second telescoped run shares the data dir (and so the compaction cache) with the first
            const config = loadConfig({
              env: {},
              overrides: { dataDir: join(workDir, `data-${evidence}`), warehouse: `duckdb:${demo.path}`, logLevel: 'silent', compaction },
            });
            const outcome = await runDiscovery(
              config,
              {
                projectId: `bench-${kind}-${attempt}`,
                projectName: `bench ${kind}`,
                pack: kind,
                maxSteps: MAX_STEPS,
                minSteps: 0,
                outDir: join(workDir, 'out'),
                quiet: true,
              },
              silentLogger,
            );
            const runtime = await composeRuntime(config);
            const steps = await runtime.store.listSteps(outcome.run.id).finally(() => runtime.close());
            const run = outcome.run;
            const telescope = run.telemetry.telescope;
            const strategies = Object.values(telescope?.strategies ?? {});
            const hits = strategies.reduce((sum, stats) => sum + stats.cache_hits, 0);
            const misses = strategies.reduce((sum, stats) => sum + stats.cache_misses, 0);
            if (attempt === 1 && evidence === 'telescope')
              cacheRows.push({ kind, first_run_hits: hits, first_run_misses: misses, second_run_hits: 0, second_run_misses: 0 });
            if (attempt === 2) {
              const row = cacheRows.at(-1);
              if (row) Object.assign(row, { second_run_hits: hits, second_run_misses: misses });
              continue;
            }
            const score = scoreRun(kind, truths.patterns, outcome.result, steps);
            const analysis = run.telemetry.llm_calls.filter((call) => call.phase === 'analysis');
            const areas = Object.values(telescope?.areas ?? {});
            rows.push({
              kind,
              evidence,
              analysis_calls: analysis.length,
              analysis_prompt_tokens: analysis.reduce((sum, call) => sum + call.prompt_tokens_estimated, 0),
              insights: outcome.result.insights.length,
              recall: score.recall,
              confirmed_share: score.confirmed_share,
              drill_down_calls: areas.reduce((sum, area) => sum + area.drill_down_calls, 0),
              expanded_nodes: areas.reduce((sum, area) => sum + area.expanded_nodes.length, 0),
            });
          }
        }
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    }
    const comparison = KINDS.flatMap((kind) => {
      const digests = rows.find((row) => row.kind === kind && row.evidence === 'digests');
      return (['telescope', 'telescope-flat'] as const).map((evidence) => {
        const telescoped = rows.find((row) => row.kind === kind && row.evidence === evidence);
        return {
          kind,
          evidence,
          token_ratio:
            digests && telescoped ? round(telescoped.analysis_prompt_tokens / Math.max(1, digests.analysis_prompt_tokens), 3) : null,
          recall_delta: digests && telescoped ? round(telescoped.recall - digests.recall, 3) : null,
          confirmed_delta: digests && telescoped ? round(telescoped.confirmed_share - digests.confirmed_share, 3) : null,
        };
      });
    });
    process.stdout.write(
      `${renderTable(
        ['kind', 'evidence', 'analysis calls', 'prompt tokens', 'insights', 'recall', 'confirmed', 'drill-downs', 'expanded'],
        rows.map((row) => [
          row.kind,
          row.evidence,
          row.analysis_calls,
          row.analysis_prompt_tokens,
          row.insights,
          row.recall,
          row.confirmed_share,
          row.drill_down_calls,
          row.expanded_nodes,
        ]),
      )}\n`,
    );
    process.stdout.write(
      `${renderTable(
        ['kind', 'evidence', 'tokens vs digests', 'recall Δ', 'confirmed Δ'],
        comparison.map((row) => [row.kind, row.evidence, row.token_ratio, row.recall_delta, row.confirmed_delta]),
      )}\n`,
    );
    process.stdout.write(
      `${renderTable(
        ['kind', 'run 1 hits', 'run 1 misses', 'run 2 hits', 'run 2 misses'],
        cacheRows.map((row) => [row.kind, row.first_run_hits, row.first_run_misses, row.second_run_hits, row.second_run_misses]),
      )}\n`,
    );
    process.stdout.write(`wrote ${writeBenchResult('telescope', { max_steps: MAX_STEPS, rows, comparison, cache: cacheRows })}\n`);
  },
};
