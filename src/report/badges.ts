/** Small coloured labels: severity, run type, statuses and the insight verification badge. */
import type { Claim, Insight, RunType, Severity, ValidationLogEntry } from '../domain/index.js';
import { formatMetricValue } from '../discovery/claims/claim-text.js';
import { html, type SafeHtml } from './escape.js';
import { formatNumber } from './format.js';

/** Colour families defined in the stylesheet. */
export type Tone = 'good' | 'warn' | 'bad' | 'neutral' | 'info';

export function badge(text: string, tone: Tone, title?: string): SafeHtml {
  return html`<span class="badge tone-${tone}"${title ? html` title="${title}"` : ''}>${text}</span>`;
}

export function severityBadge(severity: Severity): SafeHtml {
  return html`<span class="badge severity severity-${severity}">${severity}</span>`;
}

const RUN_TYPE_TONE: Record<RunType, Tone> = { full: 'good', partial: 'warn', failed: 'bad', cancelled: 'neutral' };
const RUN_TYPE_TEXT: Record<RunType, string> = {
  full: 'Full run',
  partial: 'Partial run',
  failed: 'Failed run',
  cancelled: 'Cancelled run',
};

export function runTypeBadge(runType: RunType): SafeHtml {
  return html`<span class="badge badge-large tone-${RUN_TYPE_TONE[runType]}">${RUN_TYPE_TEXT[runType]}</span>`;
}

const STATUS_TONE: Record<string, Tone> = {
  completed: 'good',
  confirmed: 'good',
  running: 'info',
  pending: 'neutral',
  skipped: 'neutral',
  cancelled: 'neutral',
  adjusted: 'warn',
  failed: 'bad',
  rejected: 'bad',
  error: 'bad',
};

/** A lifecycle status (run, area) with its conventional colour. */
export function statusBadge(status: string): SafeHtml {
  return badge(status, STATUS_TONE[status] ?? 'neutral');
}

function count(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : formatNumber(value);
}

function claimedText(value: number | null | undefined): string {
  return value === null || value === undefined ? 'no count claimed' : `claimed ${formatNumber(value)}`;
}

export interface VerificationView {
  tone: Tone;
  label: string;
  /** Claimed vs verified, in words. */
  detail: string;
  /** Why, when the status needs explaining (adjusted, rejected, error, skipped). */
  reason: string;
}

/** "30.5% vs 10.4%": a claim's two values as its text writes them. */
function claimPair(claim: Claim, value: number | null, comparison: number | null): string {
  if (value === null) return 'nothing to measure';
  return comparison === null
    ? formatMetricValue(claim, value)
    : `${formatMetricValue(claim, value)} vs ${formatMetricValue(claim, comparison)}`;
}

/** What the verification of one insight came to, in the words the report uses everywhere. */
export function describeVerification(insight: Insight, logEntry?: ValidationLogEntry): VerificationView {
  const validation = insight.validation;
  const claimedCount = validation?.original_count ?? insight.affected_count;
  const claimed = count(claimedCount);
  if (!validation) return { tone: 'neutral', label: 'Not verified', detail: claimedText(claimedCount), reason: '' };
  const verified = count(validation.verified_count);
  const check = validation.claim_check;
  if (insight.claim && check && validation.status !== 'error') {
    const original = validation.text_rerendered
      ? { ...insight.claim, value: validation.original_count ?? insight.claim.value }
      : insight.claim;
    const recounted = claimPair(insight.claim, check.value, check.comparison_value);
    const test = check.test ? ` · p ${check.test.p_value < 0.001 ? '< 0.001' : `= ${check.test.p_value.toFixed(3)}`}` : '';
    const stated = claimPair(original, original.value, validation.text_rerendered ? null : original.comparison_value);
    const views: Record<string, VerificationView> = {
      confirmed: { tone: 'good', label: '✓ Confirmed', detail: `recounted ${recounted}${test}`, reason: validation.reasoning },
      adjusted: {
        tone: 'warn',
        label: 'Adjusted',
        detail: `stated ${stated} → recounted ${recounted}${test}`,
        reason: validation.reasoning,
      },
      rejected: {
        tone: 'bad',
        label: '✗ Rejected',
        detail: `recounted ${recounted}${test} · excluded from recommendations`,
        reason: validation.reasoning,
      },
      unverified: {
        tone: 'neutral',
        label: 'Unverified',
        detail: `recounted ${recounted} · no test applies`,
        reason: validation.reasoning,
      },
    };
    const view = views[validation.status];
    if (view) return view;
  }
  switch (validation.status) {
    case 'confirmed':
      return { tone: 'good', label: '✓ Confirmed', detail: `claimed ${claimed} · verified ${verified}`, reason: validation.reasoning };
    case 'adjusted':
      return { tone: 'warn', label: 'Adjusted', detail: `claimed ${claimed} → verified ${verified}`, reason: validation.reasoning };
    case 'rejected':
      return {
        tone: 'bad',
        label: '✗ Rejected',
        detail: `claimed ${claimed} · verified ${verified} · excluded from recommendations`,
        reason: validation.reasoning,
      };
    case 'error':
      return {
        tone: 'neutral',
        label: 'Verification error',
        detail: `claimed ${claimed} · not verified`,
        reason: logEntry?.query_error ?? validation.reasoning,
      };
    case 'skipped':
    case 'unverified':
      return { tone: 'neutral', label: 'Unverified', detail: 'no checkable claim', reason: validation.reasoning };
  }
}

export function verificationBadge(insight: Insight, logEntry?: ValidationLogEntry): SafeHtml {
  const view = describeVerification(insight, logEntry);
  return html`<span class="verification tone-${view.tone}"><span class="verification-label">${view.label}</span><span class="verification-detail">${view.detail}</span></span>`;
}
