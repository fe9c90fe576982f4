/** Recommendations in priority order, each linking back to the insights it addresses. */
import type { Recommendation } from '../../domain/index.js';
import { badge, describeVerification } from '../badges.js';
import { html, type SafeHtml } from '../escape.js';
import { formatNumber, formatPercent } from '../format.js';
import { anchors, type ReportContext } from '../report-context.js';

function segmentCheckNote(recommendation: Recommendation): SafeHtml {
  const check = recommendation.segment_check;
  if (!check) return html``;
  const largest = check.max_verified_count === null ? 'n/a' : formatNumber(check.max_verified_count);
  switch (check.status) {
    case 'consistent':
      return html`<p class="small tone-text-good">Consistent with the verified counts of its insights (largest ${largest}).</p>`;
    case 'exceeds_verified':
      return html`<p class="small tone-text-warn">Segment size exceeds the largest verified count of its insights (${largest}).</p>`;
    case 'unverifiable':
      return html`<p class="small tone-text-neutral">Segment size could not be checked: none of its insights has a verified count.</p>`;
  }
}

function renderSegment(recommendation: Recommendation): SafeHtml {
  if (!recommendation.target_segment && recommendation.segment_size === null)
    return html`<p class="muted small">No target segment given.</p>`;
  return html`<p>${recommendation.target_segment || 'Unnamed segment'}${recommendation.segment_size !== null && html` <span class="muted">(${formatNumber(recommendation.segment_size)})</span>`}</p>${segmentCheckNote(recommendation)}`;
}

function renderImpact(recommendation: Recommendation): SafeHtml {
  const impact = recommendation.expected_impact;
  if (!impact.metric && !impact.estimated_improvement) return html`<p class="muted small">No expected impact given.</p>`;
  return html`<p><strong>${impact.estimated_improvement}</strong>${impact.metric && html` ${impact.metric}`}</p>${impact.reasoning && html`<p class="small muted">${impact.reasoning}</p>`}`;
}

function renderLinkedInsights(recommendation: Recommendation, context: ReportContext): SafeHtml {
  if (recommendation.related_insight_ids.length === 0) return html`<p class="muted small">Cites no insight.</p>`;
  return html`<ul class="linked-insights">${recommendation.related_insight_ids.map((insightId) => {
    const insight = context.insightById.get(insightId);
    if (!insight) return html`<li><code>${insightId}</code> <span class="muted">(not among this run's insights)</span></li>`;
    const verification = describeVerification(insight, context.validationLogByInsightId.get(insight.id));
    return html`<li><a href="#${anchors.insight(insight.id)}"><code>${insight.id}</code> ${insight.name}</a> ${badge(verification.label, verification.tone)}</li>`;
  })}</ul>`;
}

function renderList(items: readonly string[], ordered: boolean): SafeHtml {
  if (items.length === 0) return html`<p class="muted small">None given.</p>`;
  const entries = items.map((item) => html`<li>${item}</li>`);
  return ordered ? html`<ol>${entries}</ol>` : html`<ul>${entries}</ul>`;
}

export function renderRecommendation(recommendation: Recommendation, context: ReportContext): SafeHtml {
  const facts = [
    recommendation.id,
    recommendation.category,
    recommendation.effort === null ? '' : `${recommendation.effort} effort`,
    recommendation.confidence === null ? '' : `confidence ${formatPercent(recommendation.confidence)}`,
  ].filter((fact) => fact !== '');
  return html`<article class="card recommendation" id="${anchors.recommendation(recommendation.id)}">
<div class="card-badges"><span class="badge priority priority-${recommendation.priority}">Priority ${recommendation.priority}</span></div>
<h4>${recommendation.title}</h4>
<p class="facts">${facts.join(' · ')}</p>
${recommendation.description && html`<p>${recommendation.description}</p>`}
<div class="rec-grid">
<div><h5>Target segment</h5>${renderSegment(recommendation)}</div>
<div><h5>Expected impact</h5>${renderImpact(recommendation)}</div>
<div><h5>Actions</h5>${renderList(recommendation.actions, true)}</div>
<div><h5>Success metrics</h5>${renderList(recommendation.success_metrics, false)}</div>
</div>
<h5>Addresses</h5>${renderLinkedInsights(recommendation, context)}
</article>`;
}

export function renderRecommendationsSection(context: ReportContext): SafeHtml {
  const recommendations = [...context.result.recommendations].sort((left, right) => left.priority - right.priority);
  const log = context.result.recommendation_log;
  return html`<section id="recommendations"><h2>Recommendations</h2>
${log.error && html`<div class="banner banner-error"><strong>Recommendation phase error:</strong> ${log.error}</div>`}
${log.dropped_insight_ids.length > 0 && html`<p class="muted small">Unknown insight ids dropped from recommendations: ${log.dropped_insight_ids.join(', ')}</p>`}
${recommendations.length > 0 ? recommendations.map((recommendation) => renderRecommendation(recommendation, context)) : html`<p class="muted">No recommendations in this run.</p>`}
</section>`;
}
