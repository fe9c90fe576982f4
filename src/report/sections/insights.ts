/** Insights grouped by analysis area, each insight with its own chart. */
import type { Insight, Severity } from '../../domain/index.js';
import { describeVerification, severityBadge, statusBadge, verificationBadge } from '../badges.js';
import { html, type SafeHtml } from '../escape.js';
import { formatCell, formatNumber, formatPercent, pluralize } from '../format.js';
import { anchors, type ReportContext, type ResolvedArea } from '../report-context.js';
import { renderInsightChart } from './insight-chart.js';
import { renderInsightEvidence } from './insight-evidence.js';

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

function insightFacts(insight: Insight): string[] {
  return [
    insight.id,
    insight.affected_count === null ? '' : `affects ${formatNumber(insight.affected_count)}`,
    insight.confidence === null ? '' : `confidence ${formatPercent(insight.confidence)}`,
    insight.risk_score === null ? '' : `risk ${formatNumber(insight.risk_score)}`,
  ].filter((fact) => fact !== '');
}

function renderCitingRecommendations(insight: Insight, context: ReportContext): SafeHtml {
  const citing = context.recommendationsByInsightId.get(insight.id) ?? [];
  if (citing.length === 0) return html`<p class="links muted small">Not addressed by any recommendation.</p>`;
  return html`<p class="links small">Addressed by ${citing.map(
    (recommendation, index) =>
      html`${index > 0 && ', '}<a href="#${anchors.recommendation(recommendation.id)}">${recommendation.id}: ${recommendation.title}</a>`,
  )}</p>`;
}

function renderMetrics(insight: Insight): SafeHtml {
  const entries = Object.entries(insight.metrics);
  if (entries.length === 0) return html``;
  return html`<dl class="metrics">${entries.map(([name, value]) => html`<div><dt>${name}</dt><dd>${formatCell(value)}</dd></div>`)}</dl>`;
}

export function renderInsight(insight: Insight, context: ReportContext): SafeHtml {
  const logEntry = context.validationLogByInsightId.get(insight.id);
  const verification = describeVerification(insight, logEntry);
  return html`<article class="card insight" id="${anchors.insight(insight.id)}">
<div class="card-badges">${severityBadge(insight.severity)}${verificationBadge(insight, logEntry)}</div>
<h4>${insight.name}</h4>
<p class="facts">${insightFacts(insight).join(' · ')}</p>
${insight.description && html`<p>${insight.description}</p>`}
${renderInsightChart(insight)}
${verification.reason && verification.tone !== 'good' && html`<p class="verification-reason tone-text-${verification.tone}"><strong>${verification.label}:</strong> ${verification.reason}</p>`}
${insight.target_segment && html`<p class="small"><strong>Segment:</strong> ${insight.target_segment}</p>`}
${insight.indicators.length > 0 && html`<ul class="indicators">${insight.indicators.map((indicator) => html`<li>${indicator}</li>`)}</ul>`}
${renderMetrics(insight)}
${renderCitingRecommendations(insight, context)}
${renderInsightEvidence(insight, context)}
</article>`;
}

function renderAreaHeader(area: ResolvedArea): SafeHtml {
  const analysis = area.analysis;
  const stats = analysis
    ? [
        pluralize(area.insights.length, 'insight'),
        `${pluralize(analysis.selected_steps.length, 'step')} selected`,
        analysis.dropped_steps.length > 0 ? `${formatNumber(analysis.dropped_steps.length)} dropped` : '',
        analysis.prompt_tokens > 0 ? `${formatNumber(analysis.prompt_tokens)} prompt tokens` : '',
      ].filter((part) => part !== '')
    : [pluralize(area.insights.length, 'insight'), 'not analysed in this run'];
  return html`<header class="area-head"><h3>${area.name}</h3>${analysis && statusBadge(analysis.status)}<span class="muted small">${stats.join(' · ')}</span></header>
${area.description && html`<p class="muted">${area.description}</p>`}
${analysis?.status === 'failed' && html`<div class="banner banner-error small"><strong>Analysis failed:</strong> ${analysis.error ?? 'no error message recorded'}</div>`}`;
}

function renderArea(area: ResolvedArea, context: ReportContext): SafeHtml {
  const insights = [...area.insights].sort((left, right) => SEVERITY_RANK[left.severity] - SEVERITY_RANK[right.severity]);
  return html`<section class="area" id="${anchors.area(area.id)}">
${renderAreaHeader(area)}
${insights.length > 0 ? insights.map((insight) => renderInsight(insight, context)) : html`<p class="muted">No insights from this area.</p>`}
</section>`;
}

export function renderInsightsSection(context: ReportContext): SafeHtml {
  return html`<section id="insights"><h2>Insights by area</h2>${context.areas.map((area) => renderArea(area, context))}</section>`;
}
