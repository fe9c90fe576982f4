/** Charts for an analysis area, drawn from the digests of the steps its insights cite or its analysis selected. */
import { renderBarChart } from '../charts/bar-chart.js';
import { chartForStep, type ChartSpec } from '../charts/chart-spec.js';
import { renderLineChart } from '../charts/line-chart.js';
import { html, type SafeHtml } from '../escape.js';
import { pluralize } from '../format.js';
import { anchors, type ReportContext, type ResolvedArea } from '../report-context.js';

/** Two charts per area keep the section scannable; every step stays reachable through the evidence. */
export const MAX_CHARTS_PER_AREA = 2;

/** Steps behind an area, most relevant first: those its insights cite, then those analysis picked by score. */
export function evidenceStepsForArea(area: ResolvedArea): number[] {
  const cited = area.insights.flatMap((insight) => insight.source_steps);
  const selected = [...(area.analysis?.selected_steps ?? [])]
    .sort((left, right) => right.score - left.score || left.step - right.step)
    .map((picked) => picked.step);
  return [...new Set([...cited, ...selected])];
}

/** What a chart of this step should illustrate: the insights citing it, else the area as a whole. */
function focusTextFor(stepNumber: number, area: ResolvedArea): string {
  const citing = area.insights.filter((insight) => insight.source_steps.includes(stepNumber));
  const insights = citing.length > 0 ? citing : area.insights;
  return [area.name, area.description, ...insights.flatMap((insight) => [insight.name, insight.description, ...insight.indicators])].join(
    '\n',
  );
}

export function chartSpecsForArea(area: ResolvedArea, context: ReportContext): ChartSpec[] {
  const specs: ChartSpec[] = [];
  for (const stepNumber of evidenceStepsForArea(area)) {
    if (specs.length >= MAX_CHARTS_PER_AREA) break;
    const step = context.stepByNumber.get(stepNumber);
    const spec = step && chartForStep(step, focusTextFor(stepNumber, area));
    if (spec) specs.push(spec);
  }
  return specs;
}

export function renderChart(spec: ChartSpec): SafeHtml {
  const svg = spec.kind === 'line' ? renderLineChart(spec) : renderBarChart(spec);
  return html`<figure class="chart-card"><figcaption><span class="chart-title">${spec.title}</span><span class="muted small"><a href="#${anchors.step(spec.step)}">Step ${spec.step}</a> · ${spec.sourceNote}</span></figcaption>${svg}</figure>`;
}

/** Said when an area has nothing to chart, so the absence reads as a fact rather than a gap. */
export function noChartSentence(stepCount: number): string {
  return stepCount === 0
    ? 'No chart for this area: no exploration step was cited or selected for it.'
    : `No chart for this area: none of its ${pluralize(stepCount, 'evidence step')} returned a time series or a breakdown.`;
}

export function renderAreaCharts(area: ResolvedArea, context: ReportContext): SafeHtml {
  const specs = chartSpecsForArea(area, context);
  if (specs.length === 0) return html`<p class="no-chart">${noChartSentence(evidenceStepsForArea(area).length)}</p>`;
  return html`<div class="chart-grid">${specs.map(renderChart)}</div>`;
}
