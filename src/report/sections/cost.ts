/** LLM usage and cost per phase and model, the largest prompt against its window, and run counters. */
import type { LlmCallRecord, RunTelemetry } from '../../domain/index.js';
import { html, type SafeHtml } from '../escape.js';
import { describeRunCost, formatDuration, formatNumber, formatPercent } from '../format.js';
import type { ReportContext } from '../report-context.js';
import { cachedShare, largestPrompt, promptSize, totalUsage, usageRows } from '../usage-totals.js';

function renderUsageTable(telemetry: RunTelemetry, llm: string): SafeHtml {
  const rows = usageRows(telemetry);
  if (rows.length === 0) return html`<p class="muted">No LLM usage was recorded for this run.</p>`;
  const total = totalUsage(telemetry);
  const share = cachedShare(total);
  return html`<div class="table-scroll"><table class="data"><thead><tr><th>phase</th><th>model</th><th class="num">calls</th><th class="num">input tokens</th><th class="num" title="input tokens read from the provider's prompt cache">cached</th><th class="num" title="input tokens written to the prompt cache">cache writes</th><th class="num">output tokens</th><th class="num">cost</th></tr></thead><tbody>${rows.map(
    (row) =>
      html`<tr><td>${row.phase}</td><td><code>${row.model}</code></td><td class="num">${formatNumber(row.calls)}</td><td class="num">${formatNumber(row.input_tokens)}</td><td class="num">${formatNumber(row.cache_read_tokens ?? 0)}</td><td class="num">${formatNumber(row.cache_write_tokens ?? 0)}</td><td class="num">${formatNumber(row.output_tokens)}</td><td class="num">${describeRunCost(row.cost_usd, llm)}</td></tr>`,
  )}</tbody><tfoot><tr><th colspan="2">Total</th><td class="num">${formatNumber(total.calls)}</td><td class="num">${formatNumber(total.input_tokens)}</td><td class="num">${formatNumber(total.cache_read_tokens ?? 0)}</td><td class="num">${formatNumber(total.cache_write_tokens ?? 0)}</td><td class="num">${formatNumber(total.output_tokens)}</td><td class="num">${describeRunCost(total.cost_usd, llm)}</td></tr></tfoot></table></div>
${share === undefined ? html`` : html`<p class="muted small">${formatPercent(share)} of the input tokens were read from the provider's prompt cache; cost counts them, and cache writes, at the model's cache prices.</p>`}`;
}

function renderLargestPrompt(calls: readonly LlmCallRecord[]): SafeHtml {
  const call = largestPrompt(calls);
  if (!call) return html`<p class="muted">No individual LLM calls were recorded.</p>`;
  const size = promptSize(call);
  const usable = call.context_window - call.max_output_tokens;
  const where = [call.phase, call.area ? `area ${call.area}` : '', call.step === undefined ? '' : `step ${call.step}`]
    .filter((part) => part !== '')
    .join(' · ');
  const flags = [
    call.shrunk ? 'sections were shrunk to fit' : '',
    call.overflow_retry ? 'retried smaller after a provider overflow' : '',
  ].filter((flag) => flag !== '');
  const shrunkCalls = calls.filter((entry) => entry.shrunk).length;
  const retriedCalls = calls.filter((entry) => entry.overflow_retry).length;
  return html`<div class="card">
<h4>Largest prompt</h4>
<p class="facts">${where} · <code>${call.model}</code></p>
<div class="meter" role="img" aria-label="${formatPercent(size / call.context_window)} of the context window"><span style="width:${Math.min(100, (size / call.context_window) * 100).toFixed(1)}%"></span></div>
<table class="data kv"><tbody>
<tr><th>estimated prompt tokens</th><td class="num">${formatNumber(call.prompt_tokens_estimated)}</td></tr>
<tr><th>reported prompt tokens</th><td class="num">${call.prompt_tokens_reported === null ? 'not reported' : formatNumber(call.prompt_tokens_reported)}</td></tr>
<tr><th>context window</th><td class="num">${formatNumber(call.context_window)} (${formatPercent(size / call.context_window)} used)</td></tr>
<tr><th>reserved for output</th><td class="num">${formatNumber(call.max_output_tokens)}</td></tr>
<tr><th title="context window − reserved output − prompt">headroom</th><td class="num">${formatNumber(usable - size)}</td></tr>
</tbody></table>
${flags.length > 0 && html`<p class="small tone-text-warn">${flags.join('; ')}</p>`}
<p class="muted small">${formatNumber(calls.length)} calls recorded · ${formatNumber(shrunkCalls)} shrunk to fit · ${formatNumber(retriedCalls)} retried after overflow</p>
</div>`;
}

function renderCounters(telemetry: RunTelemetry): SafeHtml {
  const counters: Array<[string, string]> = [
    ['schema catalog tokens', formatNumber(telemetry.schema_tokens)],
    ['tables in catalog', formatNumber(telemetry.schema_table_count)],
    ['schema lookups', formatNumber(telemetry.schema_lookup_calls)],
    ['table searches', formatNumber(telemetry.schema_search_calls)],
    ['steps indexed for analysis', formatNumber(telemetry.analysis_step_index_upserts)],
    ['analysis step searches', formatNumber(telemetry.analysis_step_search_calls)],
    ['analysis steps dropped', formatNumber(telemetry.analysis_steps_dropped)],
    ...Object.entries(telemetry.phase_durations_ms).map(([phase, milliseconds]): [string, string] => [
      `${phase} duration`,
      formatDuration(milliseconds),
    ]),
  ];
  return html`<div class="card"><h4>Counters</h4><table class="data kv"><tbody>${counters.map(([name, value]) => html`<tr><th>${name}</th><td class="num">${value}</td></tr>`)}</tbody></table></div>`;
}

export function renderCostSection(context: ReportContext): SafeHtml {
  const telemetry = context.result.telemetry;
  return html`<section id="cost"><h2>Cost and tokens</h2>${renderUsageTable(telemetry, context.run.settings.llm)}<div class="two-columns spaced">${renderLargestPrompt(telemetry.llm_calls)}${renderCounters(telemetry)}</div></section>`;
}
