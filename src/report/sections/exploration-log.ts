/** Every exploration step, collapsed by default: what it did and why (the model's reasoning, readable part only), the SQL (original and fixed), rows, errors. */
import type { ExplorationStep, StepAction } from '../../domain/index.js';
import { badge, type Tone } from '../badges.js';
import { html, type SafeHtml } from '../escape.js';
import { formatDuration, formatTimestamp, pluralize, truncate } from '../format.js';
import { readableThinking } from '../readable-thinking.js';
import { anchors, type ReportContext } from '../report-context.js';

/** Non-query step text (nudges, schema detail) is context, not evidence: show only its opening. */
const MAX_RESULT_TEXT_CHARS = 400;
/** The model's reasoning for a step: enough to follow why it took it. */
const MAX_THINKING_CHARS = 600;

const ACTION_TONE: Record<StepAction, Tone> = {
  query: 'info',
  lookup_schema: 'neutral',
  search_tables: 'neutral',
  done: 'good',
  complete_rejected: 'warn',
  error: 'bad',
};

function renderSql(step: ExplorationStep): SafeHtml {
  const executed = step.executed_query ?? step.query;
  if (!executed) return html``;
  const failedRepair =
    step.fix_attempts > 0 &&
    !step.fixed &&
    html`<p class="small tone-text-bad">${pluralize(step.fix_attempts, 'fix attempt')} did not repair the SQL.</p>`;
  if (step.query && step.query !== executed) {
    const executedLabel = step.fixed ? `Executed SQL after ${pluralize(step.fix_attempts, 'fix attempt')}` : 'Last attempted SQL';
    return html`<p class="small muted">Original SQL (failed)</p><pre class="sql sql-original">${step.query}</pre><p class="small muted">${executedLabel}</p><pre class="sql">${executed}</pre>${failedRepair}`;
  }
  return html`<pre class="sql">${executed}</pre>${failedRepair}`;
}

function renderStepBody(step: ExplorationStep): SafeHtml {
  switch (step.action) {
    case 'query':
      return renderSql(step);
    case 'lookup_schema':
      return html`<p class="small">Looked up: ${(step.tables ?? []).map((table, index) => html`${index > 0 && ', '}<code>${table}</code>`)}</p>`;
    case 'search_tables':
      return html`<p class="small">Searched tables for “${step.search_query ?? ''}”</p>`;
    case 'done':
    case 'complete_rejected':
    case 'error': {
      const text = step.summary ?? step.result_text ?? '';
      return text ? html`<p class="small muted">${truncate(text, MAX_RESULT_TEXT_CHARS)}</p>` : html``;
    }
  }
}

function renderLogStep(step: ExplorationStep): SafeHtml {
  const facts = [
    formatTimestamp(step.timestamp),
    step.row_count === undefined ? '' : pluralize(step.row_count, 'row'),
    step.elapsed_ms === undefined ? '' : formatDuration(step.elapsed_ms),
  ].filter((fact) => fact !== '');
  const thinking = readableThinking(step.thinking);
  return html`<div class="log-step" id="${anchors.step(step.step)}">
<div class="log-head"><span class="step-number">#${step.step}</span>${badge(step.action, ACTION_TONE[step.action])}<span class="log-purpose">${step.query_purpose}</span><span class="muted small">${facts.join(' · ')}</span></div>
${thinking && html`<p class="small muted log-thinking">${truncate(thinking, MAX_THINKING_CHARS)}</p>`}
${renderStepBody(step)}
${step.error && html`<p class="error-text small">${step.error}</p>`}
</div>`;
}

export function renderExplorationLogSection(context: ReportContext): SafeHtml {
  const steps = context.steps;
  const queries = steps.filter((step) => step.action === 'query').length;
  const errors = steps.filter((step) => step.error).length;
  return html`<section id="exploration-log"><h2>Exploration log</h2>
<details class="log"><summary>${pluralize(steps.length, 'step')} · ${pluralize(queries, 'query', 'queries')} · ${pluralize(errors, 'error')} (click to expand)</summary>
${steps.length > 0 ? steps.map(renderLogStep) : html`<p class="muted">No exploration steps were stored for this run.</p>`}
</details></section>`;
}
