/**
 * The order bars of one grouping are drawn in: the natural order of the values when they have one —
 * numbers, dates, numeric ranges ("18–24", "65+", "under 30"), calendar names, and known ordinal scales
 * (low/medium/high, easy/medium/hard, bronze/silver/gold…) — else the largest value first. Pooled
 * "other values" and the missing group always come last, in that order.
 */
import type { ClaimChartPoint } from '../../domain/index.js';

/** Ordinal scales people expect in this order; a grouping whose values all belong to one is drawn in it. */
export const KNOWN_ORDERS: readonly (readonly string[])[] = [
  ['none', 'very low', 'low', 'medium low', 'medium', 'moderate', 'medium high', 'high', 'very high', 'critical'],
  ['very easy', 'easy', 'normal', 'medium', 'hard', 'very hard', 'expert', 'insane', 'nightmare'],
  ['beginner', 'novice', 'intermediate', 'advanced', 'expert', 'master'],
  ['xxs', 'xs', 's', 'm', 'l', 'xl', 'xxl', 'xxxl'],
  ['tiny', 'small', 'medium', 'large', 'extra large', 'huge'],
  ['bronze', 'silver', 'gold', 'platinum', 'diamond'],
  ['free', 'trial', 'basic', 'starter', 'standard', 'plus', 'premium', 'pro', 'business', 'enterprise'],
  ['new', 'active', 'returning', 'loyal', 'at risk', 'dormant', 'churned'],
  ['never', 'rarely', 'sometimes', 'often', 'always'],
  ['very poor', 'poor', 'fair', 'average', 'good', 'very good', 'excellent'],
  ['strongly disagree', 'disagree', 'neutral', 'agree', 'strongly agree'],
  ['intern', 'junior', 'mid', 'senior', 'staff', 'lead', 'principal', 'director', 'vp', 'executive'],
  ['q1', 'q2', 'q3', 'q4'],
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
  ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'],
  ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  ['morning', 'afternoon', 'evening', 'night'],
  ['first', 'second', 'third', 'fourth', 'fifth'],
];

function normalise(text: string): string {
  return text.trim().toLowerCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ');
}

/** The lower bound of a numeric range or a number in a label ("18–24" → 18, "65+" → 65, "under 30" → -∞ side, "$50-$100" → 50). */
function rangeStart(label: string): number | undefined {
  const text = label
    .trim()
    .toLowerCase()
    .replace(/[$€£,]/g, '');
  const under = /^(under|below|less than|<)\s*(-?\d+(\.\d+)?)/.exec(text);
  if (under) return Number(under[2]) - 1e-9;
  const match = /^(-?\d+(\.\d+)?)\s*(k|m)?\s*(\+|–|-|to|or more|and over|\.\.)?/.exec(text);
  if (!match) return undefined;
  const scale = match[3] === 'k' ? 1e3 : match[3] === 'm' ? 1e6 : 1;
  return Number(match[1]) * scale;
}

const ISO_DATE = /^\d{4}-\d{2}(-\d{2})?/;

/** The position of each key in its natural order, or undefined when the values have none. */
function naturalPositions(points: readonly ClaimChartPoint[]): number[] | undefined {
  if (points.length === 0) return [];
  const keys = points.map((point) => point.key);
  if (points.every((point) => point.x !== undefined)) return points.map((point) => point.x as number);
  if (keys.every((key) => typeof key === 'number')) return keys as number[];
  if (keys.every((key) => typeof key === 'string' && ISO_DATE.test(key)))
    return keys.map((key) => Date.parse(String(key).slice(0, 10)) || 0);
  const texts = keys.map((key) => normalise(String(key)));
  for (const scale of KNOWN_ORDERS) if (texts.every((text) => scale.includes(text))) return texts.map((text) => scale.indexOf(text));
  const starts = points.map((point) => rangeStart(String(point.key ?? point.label)));
  // a range needs more than one number among the values ("18–24", "25–34"), not one numeric-looking name
  if (starts.every((start) => start !== undefined) && new Set(starts).size === starts.length) return starts as number[];
  return undefined;
}

/** The bars in reading order: natural order when the values have one, else largest value first; pooled and missing last. */
export function orderBuckets(points: readonly ClaimChartPoint[]): ClaimChartPoint[] {
  const values = points.filter((point) => point.role !== 'others' && point.role !== 'missing');
  const tail = [...points.filter((point) => point.role === 'others'), ...points.filter((point) => point.role === 'missing')];
  const positions = naturalPositions(values);
  const indexed = values.map((point, index) => ({ point, position: positions?.[index] ?? 0 }));
  const sorted = positions
    ? indexed.sort((left, right) => left.position - right.position)
    : indexed.sort((left, right) => (right.point.value ?? Number.NEGATIVE_INFINITY) - (left.point.value ?? Number.NEGATIVE_INFINITY));
  return [...sorted.map((entry) => entry.point), ...tail];
}

/** Whether the bars follow an order of their values (then a reader should not read the order as a ranking). */
export function hasNaturalOrder(points: readonly ClaimChartPoint[]): boolean {
  return naturalPositions(points.filter((point) => point.role !== 'others' && point.role !== 'missing')) !== undefined;
}
