/** The collapsible evidence under an insight: its cited steps (purpose, SQL, digest) and its verification query. */
import type { Insight } from '../../domain/index.js';
import { html, type SafeHtml } from '../escape.js';
import { anchors, type ReportContext } from '../report-context.js';
import { renderExecutedSql, renderStepDigest } from './step-digest.js';

function renderSourceStep(stepNumber: number, context: ReportContext): SafeHtml {
  const step = context.stepByNumber.get(stepNumber);
  if (!step)
    return html`<div class="evidence-step"><p class="muted">Step ${stepNumber} is cited but is not in the exploration log.</p></div>`;
  return html`<div class="evidence-step"><h5>Step ${step.step}${step.query_purpose && html` · ${step.query_purpose}`} <a class="small" href="#${anchors.step(step.step)}">in log</a></h5>${step.error && html`<p class="error-text">${step.error}</p>`}${renderExecutedSql(step)}${renderStepDigest(step)}</div>`;
}

function renderVerificationQuery(insight: Insight): SafeHtml {
  const validation = insight.validation;
  if (!validation || (!validation.query && !validation.reasoning)) return html``;
  return html`<div class="evidence-step"><h5>Verification</h5>${validation.reasoning && html`<p>${validation.reasoning}</p>`}${validation.query && html`<pre class="sql">${validation.query}</pre>`}</div>`;
}

export function renderInsightEvidence(insight: Insight, context: ReportContext): SafeHtml {
  const cited = insight.source_steps;
  const purposes = cited.map((stepNumber) => {
    const purpose = context.stepByNumber.get(stepNumber)?.query_purpose;
    return purpose ? `#${stepNumber} ${purpose}` : `#${stepNumber}`;
  });
  const summary = cited.length > 0 ? `Evidence: ${purposes.join('; ')}` : 'Evidence: no source steps cited';
  return html`<details class="evidence"><summary>${summary}</summary>${cited.map((stepNumber) => renderSourceStep(stepNumber, context))}${renderVerificationQuery(insight)}</details>`;
}
