/** The table printed after a run: areas, insights by verification status, recommendations, cost. */
import type { DiscoveryOutcome } from './discovery-session.js';
import { renderTable } from './output.js';

export function printRunSummary(outcome: DiscoveryOutcome): void {
  const { run, result } = outcome;
  const calls = result.telemetry.llm_calls;
  const cost = calls.reduce((sum, call) => sum + call.cost_usd, 0);
  const input = calls.reduce((sum, call) => sum + (call.prompt_tokens_reported ?? call.prompt_tokens_estimated), 0);
  const output = calls.reduce((sum, call) => sum + call.output_tokens, 0);
  const maxPrompt = calls.reduce((max, call) => Math.max(max, call.prompt_tokens_estimated), 0);
  const cached = calls.reduce((sum, call) => sum + (call.cache_read_tokens ?? 0), 0);
  process.stdout.write(`\nrun ${run.id}: ${run.status} (${result.run_type}) in ${(result.duration_ms / 1000).toFixed(1)} s\n`);
  process.stdout.write(`${result.summary.text}\n\n`);
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
  process.stdout.write(
    `${renderTable(['area', 'status', 'insights', 'confirmed', 'adjusted', 'rejected', 'other', 'steps used', 'steps dropped'], rows)}\n`,
  );
  process.stdout.write(
    `recommendations: ${result.recommendations.length} · LLM calls: ${calls.length} · tokens in/out: ${input}/${output}${cached > 0 ? ` (${cached} in read from the prompt cache, ${Math.round((100 * cached) / Math.max(1, input))} %)` : ''} · largest prompt: ${maxPrompt} tokens · cost: $${cost.toFixed(4)}\n`,
  );
  const telescope = result.telemetry.telescope;
  if (telescope) {
    const areas = Object.values(telescope.areas);
    const strategies = Object.values(telescope.strategies);
    const hits = strategies.reduce((sum, stats) => sum + stats.cache_hits, 0);
    const lookups = hits + strategies.reduce((sum, stats) => sum + stats.cache_misses, 0);
    const nodes = areas[0]?.nodes;
    process.stdout.write(
      `telescope: ${nodes ? `${nodes.l1} step abstracts, ${nodes.l2} groups` : 'no tree'} · drill-downs: ${areas.reduce((sum, area) => sum + area.drill_down_calls, 0)} · compaction cache: ${hits}/${lookups} hits\n`,
    );
  }
  if (result.summary.errors.length > 0)
    process.stdout.write(`errors:\n${result.summary.errors.map((error) => `  - ${error}`).join('\n')}\n`);
}
