/**
 * Recommendations: one per distinct, usable insight (rejected ones never count), most severe first,
 * each written from the insight's claim as the prompt gives it in words (measure, segment, rounded values,
 * what they are compared with, and whether the segment is a problem, a strength or neither): a problem is
 * to find out and fix, a strength to learn from and extend, a gap of no known good side to look into. The
 * category follows what the measure is about (a funnel, refunds, retention …). Numbers in a title or a
 * description are the claim's own, so the engine's check against the claims holds.
 */
import type { LlmRequest } from '../port.js';
import { userTexts } from './phase.js';
import { compareText } from './text.js';

/** The prompt asks for 3–8; more distinct insights than this are left to the next run. */
export const MAX_RECOMMENDATIONS = 8;
const SEVERITY_PRIORITY: Record<string, number> = { critical: 1, high: 2, medium: 3, low: 4 };

/** An insight's claim in words, as the engine writes it into the prompt (discovery/claims/claim-brief.ts). */
interface ClaimWords {
  kind: string;
  stance: 'problem' | 'strength' | 'neutral';
  fact: string;
  measure: string;
  segment: string;
  direction: 'higher' | 'lower';
  value: string;
  comparison_value: string;
  compared_with: string;
  gap: string;
  rows: number | null;
  noun: string;
}

interface InsightLine {
  id: string;
  area: string;
  name: string;
  severity: string;
  affected_count: number | null;
  verification: { status: string; verified_count: number | null } | null;
  target_segment: string;
  claim?: ClaimWords;
  description: string;
}

/** What a measure is about, by its words: the category a change to it belongs to and the effort it takes. */
interface Topic {
  test: RegExp;
  category: string[];
  effort: 'low' | 'medium' | 'high';
}

const TOPICS: Topic[] = [
  { test: /abandon|checkout|cart|funnel|conversion|with an order/i, category: ['checkout', 'conversion', 'process'], effort: 'medium' },
  { test: /refund|return|defect|complaint/i, category: ['assortment', 'fulfilment', 'investigation'], effort: 'medium' },
  { test: /cancel|deliver|ship/i, category: ['fulfilment', 'process'], effort: 'medium' },
  { test: /retention|repeat|churn|return(ed|ing)|active on/i, category: ['retention', 'crm', 'segment_action'], effort: 'medium' },
  { test: /level|progress|complet|difficult/i, category: ['technical', 'retention', 'investigation'], effort: 'low' },
  {
    test: /payer|purchase|revenue|price|spend|discount|order value|iap/i,
    category: ['pricing', 'promotions', 'segment_action'],
    effort: 'medium',
  },
];
const DEFAULT_TOPIC: Topic = { test: /./, category: ['investigation', 'segment_action'], effort: 'medium' };

function capitalise(text: string): string {
  return text.length === 0 ? text : `${text[0]?.toUpperCase()}${text.slice(1)}`;
}

function decapitalise(text: string): string {
  // a proper noun or a code stays as written (Electronics, SPRINGVIP25)
  return /^[A-Z][a-z]/.test(text) && !/^[A-Z][a-z]+ (accounts|has|have)\b/.test(text) ? `${text[0]?.toLowerCase()}${text.slice(1)}` : text;
}

/** "a rise" or "a fall" of a series, in the claim's direction. */
function movement(claim: ClaimWords): string {
  return claim.direction === 'higher' ? 'rise' : 'fall';
}

interface Copy {
  title: string;
  actions: string[];
  /** One sentence after the fact: why this is worth doing. */
  why: string;
}

/** The recommendation's words, by the kind of fact and which side of it the segment is on. */
function copyFor(claim: ClaimWords): Copy {
  const pair = `${claim.value} vs ${claim.comparison_value}`;
  const segment = claim.segment || `all ${claim.noun}`;
  switch (claim.kind) {
    case 'difference':
      if (claim.stance === 'problem')
        return {
          title: `Find out why ${segment} have a ${claim.direction} ${claim.measure} (${pair}) and fix it`,
          why: `${capitalise(segment)} are on the worse side of the ${claim.measure}, ${claim.gap} from ${claim.compared_with}.`,
          actions: [
            `Compare ${segment} with ${claim.compared_with} step by step to find where the ${claim.measure} parts ways`,
            `Change the step where they part ways for ${segment} and A/B test it against the current one`,
            `Follow the ${claim.measure} of ${segment} weekly against ${claim.comparison_value} for ${claim.compared_with}`,
          ],
        };
      if (claim.stance === 'strength')
        return {
          title: `Learn from ${segment} (${claim.measure} ${pair}) and extend what works to ${claim.compared_with}`,
          why: `${capitalise(segment)} do better on the ${claim.measure}; what sets them apart may carry over.`,
          actions: [
            `Find what sets ${segment} apart from ${claim.compared_with} (offer, audience, timing, process)`,
            `Try it on a comparable group of ${claim.noun} against a holdout`,
            `Follow the ${claim.measure} of the tested group against ${claim.comparison_value} today`,
          ],
        };
      return {
        title: `Look into why ${segment} have a ${claim.direction} ${claim.measure} (${pair})`,
        why: `Decide with the team that owns the ${claim.measure} whether this gap is one to close or one to use.`,
        actions: [
          `Check with the owners of the ${claim.measure} what makes ${segment} differ from ${claim.compared_with}`,
          `Decide whether the gap of ${claim.gap} is a problem to close or a pattern to plan with`,
          `Follow the ${claim.measure} of ${segment} monthly`,
        ],
      };
    case 'trend':
    case 'shift': {
      const from = `${claim.comparison_value} → ${claim.value}`;
      const subject = claim.segment ? ` for ${claim.segment}` : '';
      if (claim.stance === 'problem')
        return {
          title: `Find what drives the ${movement(claim)} in ${claim.measure}${subject} (${from}) and reverse it`,
          why: `The ${claim.measure} moved the wrong way.`,
          actions: [
            `List what changed${subject} when the ${claim.measure} started to move (releases, prices, staffing, policy, volume)`,
            'Undo or fix the change that lines up with it, where one does',
            `Set an alert on the ${claim.measure}${subject} at its earlier level of ${claim.comparison_value}`,
          ],
        };
      if (claim.stance === 'strength')
        return {
          title: `Find what drove the ${movement(claim)} in ${claim.measure}${subject} (${from}) and keep it going`,
          why: `The ${claim.measure} moved the right way; knowing why keeps it there.`,
          actions: [
            `List what changed${subject} when the ${claim.measure} started to improve`,
            'Keep it in place and try it where the measure has not moved',
            `Follow the ${claim.measure}${subject} monthly from ${claim.value}`,
          ],
        };
      return {
        title: `Explain the ${movement(claim)} in ${claim.measure}${subject} (${from})`,
        why: 'A change this size has a cause worth knowing before planning on it.',
        actions: [
          `Find what changed${subject} in the periods the insight names (releases, staffing, policy, volume)`,
          'Check whether the same periods moved other measures too',
          `Set a monthly alert on the ${claim.measure}${subject}`,
        ],
      };
    }
    case 'correlation':
      return {
        title: `Plan with the link between ${claim.measure} (r = ${claim.value})`,
        why: 'Where one is known earlier than the other, it forecasts it.',
        actions: [
          'Check that the link holds on the next months of data before acting on it',
          `Use the earlier-known of ${claim.measure} to forecast the other`,
          'Review with the team that owns the process whether one drives the other',
        ],
      };
    case 'outlier':
      return {
        title: `Review the extreme ${claim.noun} one by one: ${decapitalise(claim.fact)}`,
        why: 'A few records this far out are errors to correct or cases to handle on their own.',
        actions: [
          `Check each of the ${claim.noun} beyond the threshold: a recording error or a real case`,
          'Correct the errors and give the real cases an owner',
          'Add a check that flags a new record this far out when it is entered',
        ],
      };
    default:
      return {
        title: `Look into why ${decapitalise(claim.fact)}`,
        why: `Confirm with the team that owns the ${claim.measure} whether this is expected.`,
        actions: [
          `Confirm with the owners of ${segment} why the ${claim.measure} concentrates there`,
          'Handle the concentration with a dedicated rule, owner or fix where it is not expected',
          `Follow the ${claim.measure} monthly`,
        ],
      };
  }
}

function readInsights(prompt: string): InsightLine[] {
  const insights: InsightLine[] = [];
  for (const line of prompt.split('\n')) {
    const trimmed = line.trim().replace(/,$/, '');
    if (!trimmed.startsWith('{"id":')) continue;
    try {
      insights.push(JSON.parse(trimmed) as InsightLine);
    } catch {
      // a line cut to fit the prompt: that insight is not usable
    }
  }
  return insights;
}

function allowedCategories(prompt: string): string[] {
  const match = /`category` is one of ([^.]+)\./.exec(prompt);
  return match ? [...(match[1] as string).matchAll(/`([^`]+)`/g)].map((item) => item[1] as string) : [];
}

/** Problems first, then gaps of no known good side, then strengths: fixing comes before learning. */
const STANCE_ORDER: Record<string, number> = { problem: 0, neutral: 1, strength: 2 };

/** Rows behind an insight: its claim's segment, else the verified or claimed count. */
function usableCount(insight: InsightLine): number | null {
  if (typeof insight.claim?.rows === 'number') return insight.claim.rows;
  const verification = insight.verification;
  if (
    verification &&
    (verification.status === 'confirmed' || verification.status === 'adjusted') &&
    typeof verification.verified_count === 'number'
  )
    return verification.verified_count;
  return typeof insight.affected_count === 'number' ? insight.affected_count : null;
}

function rounded(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1_000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** A quarter to a half of the claim's gap, in its unit: "9.9 to 19.8 percentage points", "$141 to $283". */
function improvement(claim: ClaimWords | undefined): string {
  const match = claim?.gap ? /^([^\d]*)([\d,]+(?:\.\d+)?)([kMB]?)\s*(.*)$/.exec(claim.gap) : null;
  if (!claim || !match || (claim.kind !== 'difference' && claim.kind !== 'trend' && claim.kind !== 'shift'))
    return 'not estimated: the insight measures no gap to close';
  const [, prefix = '', digits = '', scale = '', unit = ''] = match;
  const gap = Number(digits.replace(/,/g, ''));
  const range = `${prefix}${rounded(gap / 4)}${scale} to ${prefix}${rounded(gap / 2)}${scale}${unit ? ` ${unit}` : ''}`;
  return claim.stance === 'strength' ? `${range} for the tested group` : range;
}

/** An insight without a claim in words (a model's own, unverified): looked into, never acted on blindly. */
function copyWithoutClaim(insight: InsightLine): Copy {
  return {
    title: `Check "${insight.name}" with the team that owns it`,
    why: 'The finding carries no measured claim, so confirm it before acting.',
    actions: ['Recount the finding on the latest data', 'Decide with the owners whether it calls for a change', 'Review it next month'],
  };
}

export function buildRecommendations(prompt: string): Array<Record<string, unknown>> {
  const categories = allowedCategories(prompt);
  const usable = readInsights(prompt)
    .filter((insight) => insight.verification?.status !== 'rejected')
    .sort(
      (left, right) =>
        (SEVERITY_PRIORITY[left.severity] ?? 5) - (SEVERITY_PRIORITY[right.severity] ?? 5) ||
        (STANCE_ORDER[left.claim?.stance ?? 'neutral'] ?? 1) - (STANCE_ORDER[right.claim?.stance ?? 'neutral'] ?? 1) ||
        (usableCount(right) ?? 0) - (usableCount(left) ?? 0) ||
        compareText(left.id, right.id),
    );
  // insights about the same measure of the same rows make one recommendation
  const groups = new Map<string, InsightLine[]>();
  for (const insight of usable) {
    const key = insight.claim ? `${insight.claim.measure}|${insight.claim.segment}`.toLowerCase() : `name|${insight.name}`;
    groups.set(key, [...(groups.get(key) ?? []), insight]);
  }
  return [...groups.values()].slice(0, MAX_RECOMMENDATIONS).map((insights) => {
    const lead = insights[0] as InsightLine;
    const claim = lead.claim;
    const copy = claim ? copyFor(claim) : copyWithoutClaim(lead);
    const counts = insights.map(usableCount).filter((count): count is number => count !== null);
    const verified = lead.verification?.status === 'confirmed' || lead.verification?.status === 'adjusted';
    const topic = TOPICS.find((candidate) => candidate.test.test(claim?.measure ?? lead.name)) ?? DEFAULT_TOPIC;
    const category = topic.category.find((candidate) => categories.length === 0 || categories.includes(candidate)) ?? categories[0];
    const measure = claim?.measure ?? 'the measure in the insight';
    const segment = claim?.segment || lead.target_segment;
    return {
      title: capitalise(copy.title),
      description: `${claim ? claim.fact : lead.name}. ${copy.why}`,
      priority: Math.min(5, SEVERITY_PRIORITY[lead.severity] ?? 5),
      ...(category ? { category } : {}),
      target_segment: segment,
      segment_size: counts.length > 0 ? Math.min(...counts) : null,
      expected_impact: {
        metric: measure,
        estimated_improvement: improvement(claim),
        reasoning: `${claim?.stance === 'strength' ? 'Carrying over part of the lead' : 'Closing part of the gap'} the insight measured${verified ? ' (verified against the warehouse)' : ' (not verified: treat with care)'}, never more than the gap itself.`,
      },
      actions: copy.actions,
      related_insight_ids: insights.map((insight) => insight.id),
      effort: topic.effort,
      success_metrics: segment ? [`${measure} for ${segment}`, `${measure} overall`] : [`${measure} overall`],
      confidence: verified ? 0.7 : 0.5,
    };
  });
}

export function recommend(request: LlmRequest): string {
  return JSON.stringify({ recommendations: buildRecommendations(userTexts(request)[0] ?? '') });
}
