/** An insight's own chart, drawn from its claim's stored series, or the one line saying why it has none. */
import type { Insight } from '../../domain/index.js';
import { renderBarChart } from '../charts/bar-chart.js';
import { chartForInsight } from '../charts/chart-spec.js';
import { renderLineChart } from '../charts/line-chart.js';
import { html, type SafeHtml } from '../escape.js';

export function renderInsightChart(insight: Insight): SafeHtml {
  const chart = chartForInsight(insight);
  if (!chart.spec) return html`<p class="no-chart small">${chart.reason}</p>`;
  const { spec } = chart;
  const svg = spec.kind === 'line' ? renderLineChart(spec) : renderBarChart(spec);
  return html`<figure class="chart-card"><figcaption><span class="chart-title">${spec.title}</span>${spec.captions.map((caption) => html`<span class="muted small">${caption}</span>`)}</figcaption>${svg}</figure>`;
}
