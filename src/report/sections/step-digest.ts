/** One query step's result as evidence: row count, column summaries, head and tail rows. */
import type { ExplorationStep } from '../../domain/index.js';
import { renderColumnSummaries, renderRowsTable } from '../data-table.js';
import { html, type SafeHtml } from '../escape.js';
import { formatDuration, formatNumber, pluralize } from '../format.js';

function rowCountLine(step: ExplorationStep): SafeHtml {
  const rowCount = step.compact?.row_count ?? step.row_count;
  const parts = [
    rowCount === undefined ? 'row count unknown' : pluralize(rowCount, 'row'),
    step.truncated ? 'result truncated by the row limit' : '',
    step.elapsed_ms === undefined ? '' : `ran in ${formatDuration(step.elapsed_ms)}`,
  ].filter((part) => part !== '');
  return html`<p class="muted small">${parts.join(' · ')}</p>`;
}

export function renderStepDigest(step: ExplorationStep): SafeHtml {
  const compact = step.compact;
  if (!compact) {
    const rows = step.rows ?? [];
    return html`${rowCountLine(step)}${rows.length > 0 && renderRowsTable(rows, `Evidence rows (${formatNumber(rows.length)} kept)`)}`;
  }
  const head = compact.head_rows.length > 0 ? compact.head_rows : (compact.all_rows ?? []).slice(0, 5);
  const tail = compact.tail_rows ?? [];
  return html`${rowCountLine(step)}${compact.columns.length > 0 && renderColumnSummaries(compact)}${head.length > 0 && renderRowsTable(head, `First ${pluralize(head.length, 'row')}`)}${tail.length > 0 && renderRowsTable(tail, `Last ${pluralize(tail.length, 'row')}`)}`;
}

/** The SQL that actually ran, noting when self-healing changed it. */
export function renderExecutedSql(step: ExplorationStep): SafeHtml {
  const executed = step.executed_query ?? step.query;
  if (!executed) return html``;
  const fixedNote = step.fixed && step.query && step.query !== step.executed_query;
  return html`${fixedNote && html`<p class="muted small">SQL fixed after ${pluralize(step.fix_attempts, 'attempt')}; the original is in the exploration log.</p>`}<pre class="sql">${executed}</pre>`;
}
