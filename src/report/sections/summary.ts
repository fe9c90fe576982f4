/** The run at a glance: type and status, timings, counts, verification outcome, tokens and cost, errors. */
import { type DiscoveryResult, validationStatusSchema, type ValidationStatus } from '../../domain/index.js';
import { runTypeBadge, statusBadge } from '../badges.js';
import { html, type SafeHtml } from '../escape.js';
import { describeRunCost, formatDuration, formatNumber, formatTimestamp } from '../format.js';
import { anchors, type ReportContext } from '../report-context.js';
import { totalUsage } from '../usage-totals.js';
import { runErrorsWithoutSkips, skippedAreas } from '../skipped-areas.js';

/** Every problem worth a banner, without repeating the same message from two sources. */
/** " · 2 timed out (mining 2)": statements stopped by the timeout, in any stage (src/discovery/query-timeouts.ts). */
function timedOutText(timeouts: DiscoveryResult['query_timeouts']): string {
  if (!timeouts) return '';
  const stages = (['exploration', 'mining', 'verification'] as const).filter((stage) => timeouts[stage] > 0);
  const total = stages.reduce((sum, stage) => sum + timeouts[stage], 0);
  return total === 0 ? '' : ` · ${formatNumber(total)} timed out (${stages.map((stage) => `${stage} ${timeouts[stage]}`).join(', ')})`;
}

export function collectRunErrors(context: ReportContext): string[] {
  const { run, result } = context;
  const areaErrors = result.analysis_log
    .filter((area) => area.status === 'failed')
    .map((area) => `Area "${area.area_name}" failed: ${area.error ?? 'no error message recorded'}`);
  const messages = [...areaErrors, run.error ?? '', ...runErrorsWithoutSkips(result), result.recommendation_log.error ?? ''];
  const seen = new Set<string>();
  // A summary error often repeats an area's message verbatim; keep the more specific area line.
  const areaMessages = new Set(result.analysis_log.map((area) => area.error ?? '').filter((message) => message !== ''));
  return messages.filter((message) => {
    if (message === '' || seen.has(message) || areaMessages.has(message)) return false;
    seen.add(message);
    return true;
  });
}

function renderErrorBanner(context: ReportContext): SafeHtml {
  const errors = collectRunErrors(context);
  if (errors.length === 0) return html``;
  const severe = context.result.analysis_log.some((area) => area.status === 'failed') || context.run.status === 'failed';
  return html`<div class="banner ${severe ? 'banner-error' : 'banner-warn'}" role="alert"><strong>${errors.length === 1 ? 'This run had an error' : `This run had ${formatNumber(errors.length)} errors`}</strong><ul>${errors.map((message) => html`<li>${message}</li>`)}</ul></div>`;
}

/** Skipped areas are explained, not reported as errors: why each was skipped and what would let it run. */
function renderSkippedNote(context: ReportContext): SafeHtml {
  const skipped = skippedAreas(context.result, context.run);
  if (skipped.length === 0) return html``;
  return html`<div class="banner banner-note"><strong>${skipped.length === 1 ? '1 area was skipped' : `${formatNumber(skipped.length)} areas were skipped`}</strong><ul>${skipped.map(
    (area) => html`<li>${area.name}: ${area.why}. What would let it run: ${area.next}.</li>`,
  )}</ul></div>`;
}

function verificationBreakdown(context: ReportContext): string {
  const counts = new Map<ValidationStatus | 'unverified', number>();
  for (const insight of context.result.insights) {
    const status = insight.validation?.status ?? 'unverified';
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return [...validationStatusSchema.options, 'unverified' as const]
    .filter((status) => (counts.get(status) ?? 0) > 0)
    .map((status) => `${formatNumber(counts.get(status) ?? 0)} ${status}`)
    .join(' · ');
}

function tile(label: string, value: SafeHtml | string, detail = ''): SafeHtml {
  return html`<div class="tile"><div class="tile-label">${label}</div><div class="tile-value">${value}</div>${detail && html`<div class="tile-detail">${detail}</div>`}</div>`;
}

function renderAreaTable(context: ReportContext): SafeHtml {
  const log = context.result.analysis_log;
  if (log.length === 0) return html``;
  const nameById = new Map(context.areas.map((area) => [area.id, area.name]));
  return html`<div class="table-scroll"><table class="data"><caption>Analysis areas</caption><thead><tr><th>area</th><th>status</th><th class="num">insights</th><th class="num">steps selected</th><th class="num">steps dropped</th><th class="num">result chars</th><th class="num">prompt tokens</th><th class="num">duration</th></tr></thead><tbody>${log.map(
    (area) =>
      html`<tr><td><a href="#${anchors.area(area.area_id)}">${nameById.get(area.area_id) ?? area.area_name}</a></td><td>${statusBadge(area.status)}</td><td class="num">${formatNumber(area.insight_ids.length)}</td><td class="num">${formatNumber(area.selected_steps.length)}</td><td class="num">${formatNumber(area.dropped_steps.length)}</td><td class="num">${formatNumber(area.query_results_chars)}</td><td class="num">${formatNumber(area.prompt_tokens)}</td><td class="num">${formatDuration(area.duration_ms)}</td></tr>`,
  )}</tbody></table></div>`;
}

export function renderSummarySection(context: ReportContext): SafeHtml {
  const { run, result } = context;
  const runType = result.run_type;
  const counters = run.counters;
  const usage = totalUsage(result.telemetry);
  const pack = result.category ? `${result.domain} / ${result.category}` : result.domain;
  const facts: Array<[string, string]> = [
    ['Project', result.project_id],
    ['Pack / category', pack],
    ['Model', run.settings.llm],
    ['Run id', run.id],
    ['Created', formatTimestamp(run.created_at)],
    ['Started', formatTimestamp(run.started_at)],
    ['Completed', formatTimestamp(run.completed_at)],
    ['Exploration ended', run.exploration_done_reason ?? '—'],
    ['Areas requested', result.areas_requested.length > 0 ? result.areas_requested.join(', ') : 'all areas of the pack'],
  ];
  return html`<section id="summary">
${renderErrorBanner(context)}
${renderSkippedNote(context)}
<div class="tiles">
${tile('Run type and status', html`${runTypeBadge(runType)} ${statusBadge(run.status)}`, run.phase_detail)}
${tile('Duration', formatDuration(result.duration_ms))}
${tile('Steps', formatNumber(result.total_steps), `max ${formatNumber(run.settings.max_steps)}`)}
${tile('Queries', formatNumber(counters.total_queries), `${formatNumber(counters.successful_queries)} ok · ${formatNumber(counters.failed_queries)} failed${timedOutText(result.query_timeouts)}`)}
${tile('Insights', formatNumber(result.insights.length), verificationBreakdown(context))}
${tile('Recommendations', formatNumber(result.recommendations.length))}
${tile('Tokens', formatNumber(usage.input_tokens + usage.output_tokens), `${formatNumber(usage.input_tokens)} in · ${formatNumber(usage.output_tokens)} out · ${formatNumber(usage.calls)} calls`)}
${tile('Cost', describeRunCost(usage.cost_usd, run.settings.llm))}
</div>
<div class="two-columns summary-columns">
<div class="card"><h4>Summary</h4>${result.summary.text ? html`<p>${result.summary.text}</p>` : html`<p class="muted">No summary text.</p>`}${result.summary.key_findings.length > 0 && html`<h5>Key findings</h5><ul>${result.summary.key_findings.map((finding) => html`<li>${finding}</li>`)}</ul>`}</div>
<div class="card"><h4>Run</h4><table class="data kv"><tbody>${facts.map(([name, value]) => html`<tr><th>${name}</th><td>${value}</td></tr>`)}</tbody></table></div>
</div>
${renderAreaTable(context)}
</section>`;
}
