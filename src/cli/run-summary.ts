/** The table printed after a run: areas, insights by verification status, recommendations, cost; then what to do next. */
import { describeQueryTimeouts } from '../discovery/query-timeouts.js';
import type { DiscoveryResult, Run } from '../domain/index.js';
import { describeRunCost, formatNumber } from '../report/format.js';
import { runErrorsWithoutSkips, skippedAreas } from '../report/skipped-areas.js';
import { whyNotResumable } from '../runs/reopen-run.js';
import type { DiscoveryOutcome } from './discovery-session.js';
import { describeSignal } from './interrupts.js';
import { renderTable } from './output.js';

/** The run's status said once: `completed`, `completed, partial (4 of 5 areas analysed)`, `failed`, `cancelled`. */
export function runStatusLabel(run: Pick<Run, 'status' | 'run_type' | 'areas' | 'error'>): string {
  if (run.status === 'failed' && run.error?.startsWith('interrupted:')) return 'failed (interrupted: its process stopped)';
  if (run.status !== 'completed' || run.run_type !== 'partial') return run.status;
  const analysed = run.areas.filter((area) => area.status === 'completed').length;
  return `completed, partial (${analysed} of ${run.areas.length} areas analysed)`;
}

function headline(outcome: DiscoveryOutcome): string {
  const { run, result } = outcome;
  const seconds = `${(result.duration_ms / 1000).toFixed(1)} s`;
  if (run.status === 'cancelled') {
    const by = outcome.interruptedBy ? ` by ${describeSignal(outcome.interruptedBy)}` : '';
    return `run ${run.id}: cancelled${by} after ${run.steps_completed} of ${run.settings.max_steps} exploration steps (${seconds}); the steps are kept`;
  }
  // a timed-out statement is why a run whose areas all completed is partial: say so where the status is
  const timedOut = describeQueryTimeouts(result.query_timeouts);
  return `run ${run.id}: ${runStatusLabel(run)}${timedOut ? ` — ${timedOut}` : ''} in ${seconds}`;
}

/** One line of LLM usage: calls, tokens (with thousands separators), the largest prompt, and what it cost. */
export function usageLine(run: Pick<Run, 'settings'>, result: Pick<DiscoveryResult, 'telemetry' | 'recommendations'>): string {
  const calls = result.telemetry.llm_calls;
  const cost = calls.reduce((sum, call) => sum + call.cost_usd, 0);
  const input = calls.reduce((sum, call) => sum + (call.prompt_tokens_reported ?? call.prompt_tokens_estimated), 0);
  const output = calls.reduce((sum, call) => sum + call.output_tokens, 0);
  const maxPrompt = calls.reduce((max, call) => Math.max(max, call.prompt_tokens_estimated), 0);
  const cached = calls.reduce((sum, call) => sum + (call.cache_read_tokens ?? 0), 0);
  const cachedPart =
    cached > 0 ? ` (${formatNumber(cached)} in read from the prompt cache, ${Math.round((100 * cached) / Math.max(1, input))} %)` : '';
  return `recommendations: ${result.recommendations.length} · LLM calls: ${formatNumber(calls.length)} · tokens in/out: ${formatNumber(input)}/${formatNumber(output)}${cachedPart} · largest prompt: ${formatNumber(maxPrompt)} tokens · cost: ${describeRunCost(cost, run.settings.llm)}`;
}

export function printRunSummary(outcome: DiscoveryOutcome): void {
  const { run, result } = outcome;
  const write = (text: string) => process.stdout.write(text);
  write(`\n${headline(outcome)}\n`);
  write(`${result.summary.text}\n\n`);
  const rows = result.analysis_log.map((area) => {
    const insights = result.insights.filter((insight) => insight.analysis_area === area.area_id);
    const count = (status: string) => insights.filter((insight) => insight.validation?.status === status).length;
    return [
      area.area_id,
      area.status,
      insights.length,
      count('confirmed'),
      count('adjusted'),
      count('rejected'),
      count('error') + count('skipped'),
      area.selected_steps.length,
      area.dropped_steps.length,
    ];
  });
  // a run stopped before analysis has nothing per area to show
  if (rows.length > 0 && result.analysis_log.some((area) => area.status !== 'pending'))
    write(
      `${renderTable(['area', 'status', 'insights', 'confirmed', 'adjusted', 'rejected', 'other', 'steps used', 'steps dropped'], rows)}\n`,
    );
  write(`${usageLine(run, result)}\n`);
  const telescope = result.telemetry.telescope;
  if (telescope) {
    const areas = Object.values(telescope.areas);
    const strategies = Object.values(telescope.strategies);
    const hits = strategies.reduce((sum, stats) => sum + stats.cache_hits, 0);
    const lookups = hits + strategies.reduce((sum, stats) => sum + stats.cache_misses, 0);
    const nodes = areas[0]?.nodes;
    write(
      `telescope: ${nodes ? `${nodes.l1} step abstracts, ${nodes.l2} groups` : 'no tree'} · drill-downs: ${areas.reduce((sum, area) => sum + area.drill_down_calls, 0)} · compaction cache: ${hits}/${lookups} hits\n`,
    );
  }
  const skipped = skippedAreas(result, run);
  if (skipped.length > 0)
    write(
      `skipped (not errors):\n${skipped.map((area) => `  - ${area.id}: ${area.why}; what would let it run: ${area.next}`).join('\n')}\n`,
    );
  const errors = run.status === 'cancelled' ? [] : runErrorsWithoutSkips(result);
  if (errors.length > 0) write(`errors:\n${errors.map((error) => `  - ${error}`).join('\n')}\n`);
  if (whyNotResumable(run) === undefined) write(`resume it: assay runs resume ${run.id}\n`);
}

/**
 * What `assay run --json` prints: the run's outcome in brief and its result document — the same
 * document as result.json and `GET /api/v1/runs/:id/result`, insights in ranked order, each with its
 * claim and validation (docs/api.md, "Insights").
 */
export function runJson(outcome: DiscoveryOutcome): {
  run_id: string;
  status: Run['status'];
  run_type: DiscoveryResult['run_type'];
  output_dir: string;
  report_path: string;
  result: DiscoveryResult;
} {
  return {
    run_id: outcome.run.id,
    status: outcome.run.status,
    run_type: outcome.result.run_type,
    output_dir: outcome.outputDir,
    report_path: outcome.reportPath,
    result: outcome.result,
  };
}
