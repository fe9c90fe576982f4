/** Tables of result rows and of digest column summaries, as used in evidence blocks. */
import type { ColumnSummary, CompactResult, Row } from '../domain/index.js';
import { html, type SafeHtml } from './escape.js';
import { formatCell, formatNumber, truncate } from './format.js';
import { columnNames } from './row-columns.js';

/** Longer cell text is cut in the table (the full value stays in the title attribute). */
const MAX_CELL_CHARS = 80;
/** Top values listed per column in the summary table. */
const MAX_TOP_VALUES = 5;

function cell(row: Row, column: string): SafeHtml {
  const value = row[column];
  if (value === null || value === undefined) return html`<td class="null">null</td>`;
  const text = formatCell(value);
  if (typeof value === 'number') return html`<td class="num">${text}</td>`;
  if (text.length <= MAX_CELL_CHARS) return html`<td>${text}</td>`;
  return html`<td title="${text}">${truncate(text, MAX_CELL_CHARS)}</td>`;
}

export function renderRowsTable(rows: readonly Row[], caption: string): SafeHtml {
  const columns = columnNames(rows);
  return html`<div class="table-scroll"><table class="data compact"><caption>${caption}</caption><thead><tr>${columns.map((column) => html`<th>${column}</th>`)}</tr></thead><tbody>${rows.map((row) => html`<tr>${columns.map((column) => cell(row, column))}</tr>`)}</tbody></table></div>`;
}

function range(summary: ColumnSummary): string {
  if (summary.min_time !== undefined || summary.max_time !== undefined) return `${summary.min_time ?? '?'} … ${summary.max_time ?? '?'}`;
  if (summary.min === undefined && summary.max === undefined) return '';
  const median = summary.median === undefined ? '' : ` (median ${formatNumber(summary.median)})`;
  return `${formatNumber(summary.min ?? Number.NaN)} … ${formatNumber(summary.max ?? Number.NaN)}${median}`;
}

function topValues(summary: ColumnSummary): string {
  if (!summary.top || summary.top.length === 0) return '';
  const shown = summary.top.slice(0, MAX_TOP_VALUES).map((entry) => `${String(entry.value)} (${formatNumber(entry.count)})`);
  return summary.top.length > MAX_TOP_VALUES ? `${shown.join(', ')}, …` : shown.join(', ');
}

export function renderColumnSummaries(compact: CompactResult): SafeHtml {
  return html`<div class="table-scroll"><table class="data compact"><caption>Column summaries</caption><thead><tr><th>column</th><th>kind</th><th class="num">nulls</th><th class="num">distinct</th><th>range</th><th>top values</th></tr></thead><tbody>${compact.columns.map(
    (summary) =>
      html`<tr><td><code>${summary.name}</code></td><td>${summary.kind}</td><td class="num">${formatNumber(summary.null_count)}</td><td class="num">${summary.distinct_approx ? '≈' : ''}${formatNumber(summary.distinct)}</td><td>${range(summary)}</td><td>${topValues(summary)}</td></tr>`,
  )}</tbody></table></div>`;
}
