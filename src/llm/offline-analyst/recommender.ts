/**
 * Recommendations: one per distinct, usable insight (rejected ones never count), most severe first,
 * each tied to the insights it addresses, sized by the verified count, with concrete actions chosen by
 * what the insight is about (funnel drop-off, refunds, cancellations, retention, a strong cohort,
 * revenue concentration, a progression cliff, early conversion, a sign-up spike, engagement).
 */
import type { LlmRequest } from '../port.js';
import { userTexts } from './phase.js';
import { compareText } from './text.js';

/** The prompt asks for 3–8; more distinct insights than this are left to the next run. */
export const MAX_RECOMMENDATIONS = 8;
const SEVERITY_PRIORITY: Record<string, number> = { critical: 1, high: 2, medium: 3, low: 4 };

interface InsightLine {
  id: string;
  area: string;
  name: string;
  severity: string;
  affected_count: number | null;
  verification: { status: string; verified_count: number | null } | null;
  target_segment: string;
  description: string;
}

interface Theme {
  test: RegExp;
  /** Only for a segment doing better than the rest (never for a weak spot). */
  strengthOnly?: boolean;
  category: string[];
  effort: 'low' | 'medium' | 'high';
  title: (subject: string) => string;
  actions: (subject: string) => string[];
  metric: string;
}

const THEMES: Theme[] = [
  {
    test: /abandon|checkout|cart|funnel/i,
    category: ['checkout', 'conversion'],
    effort: 'medium',
    title: (subject) => `Remove checkout friction for ${subject}`,
    actions: (subject) => [
      `Replay and audit the checkout steps as ${subject} visitors experience them (form length, payment options, load time)`,
      'Offer one-tap wallet payments and guest checkout where they are missing',
      `A/B test the simplified checkout on ${subject} traffic for three weeks against the current flow`,
    ],
    metric: 'checkout completion rate',
  },
  {
    test: /refund|return|defect/i,
    category: ['assortment', 'fulfilment', 'pricing'],
    effort: 'medium',
    title: (subject) => `Stop the rise in refunds for ${subject}`,
    actions: (subject) => [
      `Break ${subject} refunds down by product, supplier and reason for the last three months`,
      'Pull or fix the products with the highest refund rates and correct their descriptions',
      'Add a quality check with the suppliers behind the worst products',
    ],
    metric: 'refund rate',
  },
  {
    test: /cancel|deliver|shipping region|transit/i,
    category: ['fulfilment'],
    effort: 'medium',
    title: (subject) => `Cut order cancellations in ${subject}`,
    actions: (subject) => [
      `Compare delivery promises and actual transit times for ${subject} orders`,
      'Add a closer fulfilment option or carrier for the region',
      'Send proactive delivery updates to orders at risk of cancellation',
    ],
    metric: 'order cancellation rate',
  },
  {
    test: /cliff|progression|level \d+/i,
    category: ['technical', 'retention'],
    effort: 'low',
    title: (subject) => `Rebalance the difficulty at ${subject}`,
    actions: (subject) => [
      `Lower the difficulty of ${subject} (more moves or an easier goal) for half of new players`,
      'Offer a free booster after two failed attempts there',
      'Track completion and next-day return for both groups for two weeks',
    ],
    metric: 'level completion rate',
  },
  {
    test: /retention|repeat|churn|per customer \d|orders per customer|sessions per player|daily activity per/i,
    category: ['retention', 'crm'],
    effort: 'medium',
    title: (subject) => `Win back and retain ${subject}`,
    actions: (subject) => [
      `Start an onboarding and win-back journey for ${subject} in their first weeks`,
      `Review what ${subject} were promised at acquisition and align the first experience with it`,
      'Measure the journey against a holdout group',
    ],
    metric: 'repeat / return rate',
  },
  {
    test: /cohort|promotion|90-day/i,
    strengthOnly: true,
    category: ['promotions', 'crm'],
    effort: 'low',
    title: (subject) => `Scale what works in the ${subject} cohort`,
    actions: (subject) => [
      `Identify what the ${subject} offer included (discount, club membership, timing)`,
      'Repeat the offer for a new cohort of comparable size',
      'Compare 90-day value against customers acquired without it',
    ],
    metric: '90-day revenue per customer',
  },
  {
    test: /brings \d+% of all|revenue \(/i,
    category: ['pricing', 'assortment', 'promotions'],
    effort: 'medium',
    title: (subject) => `Reduce revenue dependence on ${subject}`,
    actions: (subject) => [
      `Protect ${subject}: monitor its price, stock and conversion weekly`,
      'Build a second offer for the same buyers at a different price point',
      'Test bundles that pair it with the weaker products',
    ],
    metric: 'revenue share of the top product',
  },
  {
    test: /first (purchase|order)|payer/i,
    category: ['conversion', 'promotions'],
    effort: 'low',
    title: () => 'Put the first offer in front of new users in their first three days',
    actions: () => [
      'Show a first-purchase offer in the first three days after install or sign-up',
      'Stop spending discount on users past day seven, who rarely convert',
      'A/B test the timing of the first offer',
    ],
    metric: 'payer conversion in the first 3 days',
  },
  {
    test: /spike|signup/i,
    category: ['promotions', 'crm'],
    effort: 'low',
    title: (subject) => `Repeat the campaign behind ${subject}`,
    actions: () => [
      'Find which campaign or referral drove the peak week',
      "Rerun it with the same mechanics and track the new users' retention",
      "Compare the cohort's week-5 activity with other sign-ups",
    ],
    metric: 'weekly sign-ups',
  },
];

/** A segment doing better than the rest: the recommendation is to learn from it and do more of it. */
const STRENGTH_THEME: Theme = {
  test: /^Strength:/,
  category: ['promotions', 'crm', 'retention'],
  effort: 'low',
  title: (subject) => `Learn from ${subject} and extend what works`,
  actions: (subject) => [
    `Find what sets ${subject} apart (offer, audience, timing, product)`,
    `Apply it to a comparable segment as a test, sized like ${subject}`,
    'Compare the tested segment against a holdout for 90 days',
  ],
  metric: 'the measure in which the segment leads',
};

const DEFAULT_THEME: Theme = {
  test: /./,
  category: [],
  effort: 'medium',
  title: (subject) => `Act on the gap for ${subject}`,
  actions: (subject) => [
    `Confirm the gap for ${subject} with the team that owns it`,
    'Test one targeted change for that segment against a control group',
    'Review the measure monthly',
  ],
  metric: 'the measure in the insight',
};

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

/** The segment an insight names: `mobile: checkout …` → `mobile`; otherwise its target segment. */
function subjectOf(insight: InsightLine): string {
  const prefix = /^([^:]{1,60}):/.exec(insight.name)?.[1];
  if (prefix && !/^(signup spike|progression (cliff|drop) at)/i.test(prefix)) return prefix.trim();
  const at = /(?:cliff|drop) at ([^:]+):/i.exec(insight.name)?.[1];
  if (at) return at.trim();
  return insight.target_segment || insight.name;
}

function usableCount(insight: InsightLine): number | null {
  const verification = insight.verification;
  if (
    verification &&
    (verification.status === 'confirmed' || verification.status === 'adjusted') &&
    typeof verification.verified_count === 'number'
  )
    return verification.verified_count;
  return typeof insight.affected_count === 'number' ? insight.affected_count : null;
}

/** `(67% vs 27%)` in a name → a plausible recovery of a quarter to a half of the gap. */
function improvement(insight: InsightLine): string {
  const match = /\((\d+(?:\.\d+)?)% vs (\d+(?:\.\d+)?)%\)/.exec(insight.name);
  if (!match) return 'recover a quarter to a half of the gap described';
  const gap = Math.abs(Number(match[1]) - Number(match[2]));
  return `${(gap / 4).toFixed(1)} to ${(gap / 2).toFixed(1)} percentage points`;
}

export function buildRecommendations(prompt: string): Array<Record<string, unknown>> {
  const categories = allowedCategories(prompt);
  const usable = readInsights(prompt)
    .filter((insight) => insight.verification?.status !== 'rejected')
    .sort(
      (left, right) =>
        (SEVERITY_PRIORITY[left.severity] ?? 5) - (SEVERITY_PRIORITY[right.severity] ?? 5) ||
        (usableCount(right) ?? 0) - (usableCount(left) ?? 0) ||
        compareText(left.id, right.id),
    );
  const groups = new Map<string, { theme: Theme; subject: string; insights: InsightLine[] }>();
  for (const insight of usable) {
    const text = `${insight.name} ${insight.description}`;
    const weak = /^Weak spot:/.test(insight.description);
    const applicable = THEMES.filter((candidate) => !(weak && candidate.strengthOnly));
    const theme = STRENGTH_THEME.test.test(insight.description)
      ? STRENGTH_THEME
      : (applicable.find((candidate) => candidate.test.test(insight.name)) ??
        applicable.find((candidate) => candidate.test.test(text)) ??
        DEFAULT_THEME);
    const subject = subjectOf(insight);
    const key = `${theme.metric}|${subject.toLowerCase()}`;
    const group = groups.get(key) ?? { theme, subject, insights: [] };
    group.insights.push(insight);
    groups.set(key, group);
  }
  return [...groups.values()].slice(0, MAX_RECOMMENDATIONS).map(({ theme, subject, insights }) => {
    const lead = insights[0] as InsightLine;
    const counts = insights.map(usableCount).filter((count): count is number => count !== null);
    const verified = lead.verification?.status === 'confirmed' || lead.verification?.status === 'adjusted';
    const category = theme.category.find((candidate) => categories.length === 0 || categories.includes(candidate)) ?? categories[0];
    return {
      title: theme.title(subject),
      description: `${lead.name}. ${lead.description.split('. ')[0] ?? ''}.`.replace(/\.\.$/, '.'),
      priority: Math.min(5, SEVERITY_PRIORITY[lead.severity] ?? 5),
      ...(category ? { category } : {}),
      target_segment: lead.target_segment || subject,
      segment_size: counts.length > 0 ? Math.min(...counts) : null,
      expected_impact: {
        metric: theme.metric,
        estimated_improvement: improvement(lead),
        reasoning: `Closing part of the gap the insight measured${verified ? ' (verified against the warehouse)' : ' (not verified: treat with care)'}, not more than the gap itself.`,
      },
      actions: theme.actions(subject),
      related_insight_ids: insights.map((insight) => insight.id),
      effort: theme.effort,
      success_metrics: [`${theme.metric} for ${subject}`, `${theme.metric} overall`],
      confidence: verified ? 0.7 : 0.5,
    };
  });
}

export function recommend(request: LlmRequest): string {
  return JSON.stringify({ recommendations: buildRecommendations(userTexts(request)[0] ?? '') });
}
