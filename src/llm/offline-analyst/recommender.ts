/**
 * Recommendations: one per distinct, usable insight (rejected ones never count), most severe first,
 * each tied to the insights it addresses, sized by the verified count, with concrete actions chosen by
 * what the insight's own words say it is about (a funnel, refunds, cancellations, retention, a strong
 * cohort, a dominant contributor, a drop on a scale, early first actions, arrivals, a change over
 * time, an imbalance, a concentration, a relationship, repeated rows) and otherwise generic.
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

/**
 * Themes, most specific first. Each is chosen by the words of the insight itself (its name: the
 * data's own column and value words, or the kind of finding), and its copy names only what the
 * insight names, so a funnel recommendation never lands on data that has no funnel.
 */
const THEMES: Theme[] = [
  {
    test: /abandon|checkout|cart|funnel/i,
    category: ['checkout', 'conversion', 'process'],
    effort: 'medium',
    title: (subject) => `Remove friction in the funnel for ${subject}`,
    actions: (subject) => [
      `Walk through the funnel steps as ${subject} experiences them and list where the drop-off happens`,
      'Simplify or remove the step with the largest drop-off',
      `A/B test the simpler flow on ${subject} for three weeks against the current one`,
    ],
    metric: 'funnel completion rate',
  },
  {
    test: /refund|return|defect/i,
    category: ['assortment', 'fulfilment', 'investigation'],
    effort: 'medium',
    title: (subject) => `Find and fix the causes of the rise in ${subject}`,
    actions: (subject) => [
      `Break the affected rows of ${subject} down by their recorded reasons for the last three months`,
      'Fix or withdraw the items behind most of them',
      'Follow the rate monthly until it is back to the level of the other segments',
    ],
    metric: 'refund / return rate',
  },
  {
    test: /cancel/i,
    category: ['fulfilment', 'process'],
    effort: 'medium',
    title: (subject) => `Cut cancellations in ${subject}`,
    actions: (subject) => [
      `Review what the cancelled rows of ${subject} have in common (timing, owner, type)`,
      'Fix the most frequent cause first',
      'Follow the cancellation share weekly against the other segments',
    ],
    metric: 'cancellation rate',
  },
  {
    test: /cliff|progression|furthest/i,
    category: ['technical', 'retention', 'investigation'],
    effort: 'low',
    title: (subject) => `Investigate the drop at ${subject}`,
    actions: (subject) => [
      `Compare ${subject} with the positions just before and after it`,
      `Test an easier or clearer variant of ${subject} against the current one`,
      'Track completion and how many reach the next position in both groups for two weeks',
    ],
    metric: 'completion rate at that position',
  },
  {
    test: /retention|repeat rate|churn/i,
    category: ['retention', 'crm', 'segment_action'],
    effort: 'medium',
    title: (subject) => `Retain ${subject}`,
    actions: (subject) => [
      `Start a journey for ${subject} in their first weeks, built on what the retained segments do`,
      `Review what ${subject} were offered at the start and align the first experience with it`,
      'Measure the journey against a holdout group',
    ],
    metric: 'repeat / return rate',
  },
  {
    test: /cohort|promotion|\d+-day/i,
    strengthOnly: true,
    category: ['promotions', 'crm', 'segment_action'],
    effort: 'low',
    title: (subject) => `Scale what works in the ${subject} cohort`,
    actions: (subject) => [
      `Identify what the ${subject} cohort received that others did not (offer, timing, channel)`,
      'Repeat it for a new cohort of comparable size',
      'Compare the new cohort against one started without it',
    ],
    metric: 'value per member of the cohort',
  },
  {
    test: /brings \d+% of all/i,
    category: ['pricing', 'assortment', 'segment_action'],
    effort: 'medium',
    title: (subject) => `Reduce dependence on ${subject}`,
    actions: (subject) => [
      `Monitor ${subject} weekly: it carries most of the total`,
      'Build up a second contributor of the same kind',
      'Set an alert when its share moves by more than five points',
    ],
    metric: 'share of the total held by the top value',
  },
  {
    test: /first (purchase|order|payment|transaction)|payer/i,
    category: ['conversion', 'promotions', 'segment_action'],
    effort: 'low',
    title: () => 'Act in the first days, when the first action happens',
    actions: () => [
      'Put the first offer or prompt in front of new members in their first three days',
      'Stop spending on members past day seven, who rarely act for the first time',
      'A/B test the timing',
    ],
    metric: 'first actions in the first 3 days',
  },
  {
    test: /signup spike|new .+ per week/i,
    category: ['promotions', 'crm', 'investigation'],
    effort: 'low',
    title: (subject) => `Find and repeat what drove ${subject}`,
    actions: () => [
      'Find which campaign, referral or event drove the peak week',
      'Repeat it with the same mechanics and follow the new members over the next weeks',
      "Compare the peak week's later activity with other weeks'",
    ],
    metric: 'weekly arrivals',
  },
  {
    test: /spike|increased .+ from \d{4}|steps (up|down)|increases over time|decreases over time|increase over time|decrease over time/i,
    category: ['investigation', 'monitoring', 'capacity'],
    effort: 'low',
    title: (subject) => `Explain the change over time in ${subject}`,
    actions: (subject) => [
      `Find what changed for ${subject} in the months the insight names (releases, staffing, policy, volume)`,
      `Set a monthly alert on the measure for ${subject}, with the median month as the baseline`,
      'Check whether the same months moved other segments or measures too',
    ],
    metric: 'the monthly measure in the insight',
  },
  {
    test: /significantly more .+ than the other/i,
    category: ['capacity', 'process', 'segment_action'],
    effort: 'medium',
    title: (subject) => `Review the imbalance towards ${subject}`,
    actions: (subject) => [
      `Check whether the volume of ${subject} reflects demand or a routing or recording rule`,
      'Plan capacity and ownership on the measured split rather than an even one',
      'Track the share per value monthly',
    ],
    metric: 'share of rows per value',
  },
  {
    test: /dominates within|is concentrated in|mention "/i,
    category: ['investigation', 'segment_action', 'process'],
    effort: 'low',
    title: (subject) => `Look into what concentrates in ${subject}`,
    actions: (subject) => [
      `Confirm with the owners of ${subject} why it concentrates there`,
      'Handle that concentration with a dedicated rule, owner or fix',
      'Follow the mix monthly',
    ],
    metric: 'share of the concentrated value',
  },
  {
    test: /correlation between|brackets have/i,
    category: ['investigation', 'process', 'monitoring'],
    effort: 'low',
    title: (subject) => `Use the relationship found for ${subject}`,
    actions: () => [
      'Check the relationship on the next months of data before acting on it',
      'Plan with it where one measure is known earlier than the other',
      'Review the rule behind it with the team that owns the process',
    ],
    metric: 'the related measure',
  },
  {
    test: /repeat another row identically/i,
    category: ['data_quality', 'investigation'],
    effort: 'low',
    title: (subject) => `Check the repeated rows of ${subject}`,
    actions: (subject) => [
      `Review the repeated rows of ${subject} one by one: double entries or genuine repeats`,
      'Add a check that flags an exact repeat when it is entered',
      'Correct the totals that double entries inflate',
    ],
    metric: 'share of repeated rows',
  },
];

/** A segment doing better than the rest on a measure with a known good direction: learn from it and do more of it. */
const STRENGTH_THEME: Theme = {
  test: /^Strength:/,
  category: ['promotions', 'crm', 'retention', 'segment_action'],
  effort: 'low',
  title: (subject) => `Learn from ${subject} and extend what works`,
  actions: (subject) => [
    `Find what sets ${subject} apart (offer, audience, timing, process)`,
    `Apply it to a comparable segment as a test, sized like ${subject}`,
    'Compare the tested segment against a holdout',
  ],
  metric: 'the measure in which the segment leads',
};

const DEFAULT_THEME: Theme = {
  test: /./,
  category: ['investigation', 'segment_action'],
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
  const match = /\((\d+(?:\.\d+)?)% vs (\d+(?:\.\d+)?)%/.exec(insight.name);
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
    const weak = /^Weak spot:/.test(insight.description);
    const applicable = THEMES.filter((candidate) => !(weak && candidate.strengthOnly));
    const theme = STRENGTH_THEME.test.test(insight.description)
      ? STRENGTH_THEME
      : (applicable.find((candidate) => candidate.test.test(insight.name)) ??
        applicable.find((candidate) => candidate.test.test(`${insight.name} ${insight.target_segment}`)) ??
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
