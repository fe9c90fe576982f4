/**
 * Words from a claim: the title and description of an insight rendered from what it asserts, in the
 * pack's nouns ("incidents", "employees") and the columns' labels, with its numbers rounded the way a
 * person writes them. Used for every mined finding, by the offline narrator, and by verification to
 * re-render an adjusted insight from its recount — so text and claim cannot disagree.
 *
 * No stock phrases: a sentence states the fact, its comparison and its evidence; "steady" or "linear"
 * only when the fit says so, with the fit stated.
 */
import type { Claim, ClaimGroup, ClaimScalar } from '../../domain/index.js';
import { MONTH_NAMES, WEEKDAY_NAMES, isPeriodGrain, periodName, previousPeriodStart } from '../statistics/periods.js';

/** r² from which a trend is called steady (and linear), with the figure. */
export const STEADY_TREND_R2 = 0.8;

export interface ClaimText {
  title: string;
  description: string;
}

const PREPOSITION_END = /\b(to|by|for|from|in|at|on|with|of)$/i;
const YES = /^(yes|y|true|t|1)$/i;
const NO = /^(no|n|false|f|0)$/i;

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}

/** 1,234 · 12.3 · 0.123 — three significant figures below 1,000, whole numbers with a thousands separator above. */
export function formatNumber(value: number, integer = false): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (Number.isInteger(value) && magnitude < 1_000) return String(value);
  if (integer || magnitude >= 1_000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  if (magnitude === 0) return '0';
  return value.toPrecision(2);
}

/** 30.5% — one decimal, none at or above 99.5%. */
export function formatPercent(share: number): string {
  // a difference of two rates can leave floating-point dust where the rate is zero; below a millionth, a
  // share reads as none
  const percent = Math.abs(share) < 1e-6 ? 0 : share * 100;
  if (Math.abs(percent) >= 99.95 || Math.abs(percent) === 0) return `${Math.round(percent)}%`;
  // one significant digit, written out (0.0004%, never 4e-4%)
  if (Math.abs(percent) < 0.1) return `${percent.toFixed(-Math.floor(Math.log10(Math.abs(percent))))}%`;
  return `${percent.toFixed(1)}%`;
}

function formatMoney(value: number, symbol: string): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e9) return `${symbol}${(value / 1e9).toFixed(1)}B`;
  if (magnitude >= 1e6) return `${symbol}${(value / 1e6).toFixed(1)}M`;
  return `${symbol}${formatNumber(value, magnitude >= 100)}`;
}

const CURRENCY = /\((USD|EUR|GBP)\)\s*$/;
const SYMBOL: Record<string, string> = { USD: '$', EUR: '€', GBP: '£' };
const UNIT_SUFFIX = /\(([^()]+)\)\s*$/;

/** A measure's label without its bracketed unit, and the unit. */
function splitUnit(label: string): { words: string; unit?: string } {
  const match = UNIT_SUFFIX.exec(label);
  return match ? { words: label.slice(0, match.index).trim(), unit: match[1] as string } : { words: label };
}

function isShareMetric(claim: Claim): boolean {
  return claim.metric.kind === 'rate' || claim.metric.kind === 'share';
}

/** A value of the claim's metric as text: a percentage for rates and shares, money with its symbol, units after numbers. */
export function formatMetricValue(claim: Claim, value: number): string {
  if (claim.kind === 'share' || isShareMetric(claim)) return formatPercent(value);
  const label = claim.metric.label;
  const currency = CURRENCY.exec(label)?.[1];
  if (currency) return formatMoney(value, SYMBOL[currency] ?? '');
  const integer = claim.metric.kind === 'count' || claim.metric.kind === 'distinct_count';
  const { unit } = splitUnit(label);
  // calendar years are labels, not quantities: 1986, never 1,986
  if (/(^|\s)(year|yr)s?(\s|$)/i.test(splitUnit(label).words) && Math.abs(value) >= 1_000 && Math.abs(value) < 10_000)
    return value.toFixed(value % 1 === 0 ? 0 : 1);
  const unitText = claim.metric.kind === 'duration_mean' || claim.metric.kind === 'duration_median' ? (claim.metric.unit ?? 'days') : unit;
  const number = formatNumber(value, integer);
  return unitText && unitText !== '%' ? `${number} ${unitText}` : number;
}

export function noun(claim: Claim): string {
  return claim.noun && claim.noun.trim() !== '' ? claim.noun : 'rows';
}

function columnWords(label: string | undefined, column: string): string {
  return label && label.trim() !== '' ? label : column.replace(/_/g, ' ');
}

function hourRange(hour: number): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(hour)}:00–${pad(hour)}:59`;
}

/** A calendar or period value as a person names it (September, Friday, 20:00–20:59, July 2023). */
export function valueName(group: Pick<ClaimGroup, 'grain'>, value: ClaimScalar): string {
  const numeric = typeof value === 'number' ? value : Number(value);
  switch (group.grain) {
    case 'month_of_year':
      return MONTH_NAMES[numeric - 1] ?? String(value);
    case 'day_of_week':
      return WEEKDAY_NAMES[(numeric === 0 ? 7 : numeric) - 1] ?? String(value);
    case 'hour_of_day':
      return Number.isFinite(numeric) ? hourRange(numeric) : String(value);
    default:
      if (isPeriodGrain(group.grain) && typeof value === 'string') return periodName(value, group.grain);
      if (typeof value === 'boolean') return value ? 'yes' : 'no';
      // a whole-number value names a code, a year or a level as written (store 1001, 1986), never "1,001"
      if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatNumber(value);
      return value.trim();
  }
}

/** Parts of the day an hour range covers, as people name them: night 0–5, morning 6–11, afternoon 12–17, evening 18–23. */
function dayPart(first: number, last: number): string | undefined {
  const parts: Array<[string, number, number]> = [
    ['night', 0, 5],
    ['morning', 6, 11],
    ['afternoon', 12, 17],
    ['evening', 18, 23],
  ];
  const covered = parts.filter(([, start, end]) => first <= end && last >= start && Math.min(last, end) - Math.max(first, start) + 1 >= 3);
  if (covered.length === 0) return undefined;
  const names = covered.map(([name]) => name);
  return `the ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** A range of a group's column in words: "with departure time between 20:00 and 23:59", "in May to July", "with job level 1 to 2". */
function rangePhrase(group: ClaimGroup, label: string): string {
  const from = group.from;
  const to = group.to;
  const lastOf = (value: ClaimScalar) => (typeof value === 'number' ? value - 1 : value);
  switch (group.grain) {
    case 'hour_of_day': {
      const first = Number(from ?? 0);
      const last = Number(lastOf(to ?? 24));
      const part = dayPart(first, last);
      return `with ${label} between ${pad(first)}:00 and ${pad(last)}:59${part ? ` (${part})` : ''}`;
    }
    case 'month_of_year':
    case 'day_of_week': {
      const first = from === undefined ? undefined : valueName(group, from);
      const last = to === undefined ? undefined : valueName(group, lastOf(to));
      if (first && last) return first === last ? `in ${first}` : `in ${first} to ${last}`;
      return first ? `from ${first}` : `up to ${last}`;
    }
    default:
      break;
  }
  if (isPeriodGrain(group.grain)) {
    const first = from === undefined ? undefined : valueName(group, from);
    const end = to === undefined ? undefined : valueName(group, to);
    if (first && end) return `with ${label} from ${first} to before ${end}`;
    return first ? `with ${label} from ${first}` : `with ${label} before ${end}`;
  }
  const integers = (from === undefined || Number.isInteger(from)) && (to === undefined || Number.isInteger(to));
  // bounds of a year are labels (1990 to 1999); of a quantity, amounts (1,000 to 1,999)
  const bound = (value: number) => (/(^|\s)(year|yr)s?(\s|$)/i.test(label) ? String(value) : formatNumber(value));
  if (integers && typeof from === 'number' && typeof to === 'number')
    return to - 1 === from ? `with ${label} ${bound(from)}` : `with ${label} ${bound(from)} to ${bound(to - 1)}`;
  if (from !== undefined && to !== undefined) return `with ${label} from ${valueName(group, from)} to under ${valueName(group, to)}`;
  return from !== undefined
    ? `with ${label} of ${valueName(group, from)} or more`
    : `with ${label} under ${valueName(group, to as ClaimScalar)}`;
}

/** The rows of a group, in words: "employees with over time", "incidents assigned to Beth Anglin", "flights on Fridays". */
export function groupPhrase(group: ClaimGroup, nounText: string): string {
  const label = columnWords(group.label, group.column);
  if (group.missing) return `${nounText} with no ${label}`;
  if (group.values) return `${nounText} whose ${label} is ${group.values.map((value) => valueName(group, value)).join(' or ')}`;
  if (group.value === undefined) return `${nounText} ${rangePhrase(group, label)}`;
  const value = group.value;
  switch (group.grain) {
    case 'day_of_week':
      return `${nounText} on ${valueName(group, value)}s`;
    case 'month_of_year':
      return `${nounText} in ${valueName(group, value)}`;
    case 'hour_of_day':
      return `${nounText} with ${label} between ${valueName(group, value).replace('–', ' and ')}`;
    default:
      break;
  }
  if (isPeriodGrain(group.grain)) return `${nounText} in ${valueName(group, value)}`;
  const text = String(value);
  if ((typeof value === 'string' && YES.test(text) && !/^\d$/.test(text)) || value === true) return `${nounText} with ${label}`;
  if ((typeof value === 'string' && NO.test(text) && !/^\d$/.test(text)) || value === false) return `${nounText} without ${label}`;
  // a numbered level reads as "level 12", "job level 1" ("level number 12" is "level 12")
  const numbered = label.replace(/\s+(number|no|num|nbr|index|idx)$/i, '');
  if (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    group.grain === undefined &&
    /\b(level|tier|grade|stage|step|round|world|chapter|rank|version|week|day|month)$/i.test(numbered)
  )
    return `${nounText} at ${numbered} ${value}`;
  if (PREPOSITION_END.test(label)) return `${nounText} ${label} ${valueName(group, value)}`;
  return `${nounText} whose ${label} is ${valueName(group, value)}`;
}

/** What the metric measures, as a noun phrase: "attrition rate", "average monthly income", "time from opened to closed". */
export function metricPhrase(claim: Claim): string {
  const { metric } = claim;
  const { words } = splitUnit(metric.label || metric.column || metric.kind);
  switch (metric.kind) {
    case 'rate':
      return words;
    case 'mean':
    case 'duration_mean':
      return `average ${words}`;
    case 'median':
    case 'duration_median':
      return `median ${words}`;
    case 'sum':
      return words.startsWith('total ') ? words : `total ${words}`;
    case 'count':
      return `number of ${noun(claim)}`;
    case 'distinct_count':
      return `number of distinct ${pluralWords(words.replace(/^distinct /, ''))} among the ${noun(claim)}`;
    case 'share':
      return `share of ${noun(claim)}`;
  }
}

function pluralWords(words: string): string {
  return /s$/.test(words) ? words : /[^aeiou]y$/.test(words) ? `${words.slice(0, -1)}ies` : `${words}s`;
}

function pValueText(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  return `p = ${p < 0.01 ? p.toFixed(3) : p.toFixed(2)}`;
}

const TEST_NAMES: Record<NonNullable<Claim['test']>['name'], string> = {
  two_proportion_z: 'two-proportion z',
  welch_t: "Welch's t",
  mood_median: "Mood's median test χ²",
  binomial: 'binomial z',
  ols_slope: 'slope t',
  pearson_t: 't',
  poisson_rate: 'Poisson z',
  compound_poisson_z: 'z of the totals',
  share_change_z: 'z of the share',
  poisson_tail: 'Poisson tail test',
};

function evidence(claim: Claim, extra: string[] = []): string {
  const parts = [...extra];
  // the tail test's statistic is the rows the bulk's model expects beyond the threshold
  if (claim.test?.name === 'poisson_tail')
    parts.push(
      `${formatExpected(claim.test.statistic)} ${noun(claim)} expected beyond it from the spread of the rest, ${pValueText(claim.test.p_value)}`,
    );
  else if (claim.test)
    parts.push(`${TEST_NAMES[claim.test.name]} = ${formatNumber(claim.test.statistic)}, ${pValueText(claim.test.p_value)}`);
  if (claim.approximate) parts.push('measured on a sample');
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

/** A tiny expected count as a person reads it: "fewer than one in a million", else its value. */
function formatExpected(expected: number): string {
  if (expected < 1e-6) return 'fewer than one in a million';
  if (expected < 0.01) return `${expected.toPrecision(1)}`;
  return formatNumber(expected);
}

/** Below this share of the larger value, a ratio is against (nearly) nothing: not stated. */
const MIN_RATIO_BASE = 0.01;

function ratioText(value: number, comparison: number): string | undefined {
  if (!(comparison > 0) || !(value > 0)) return undefined;
  if (Math.min(value, comparison) < MIN_RATIO_BASE * Math.max(value, comparison)) return undefined;
  const ratio = value / comparison;
  if (ratio >= 1.1) return `${formatNumber(ratio)}×`;
  if (ratio <= 0.9) return `${formatNumber(1 / ratio)}× lower`;
  return undefined;
}

function countOf(value: number | undefined): string {
  return value === undefined ? '' : value.toLocaleString('en-US');
}

/** What a claim is compared with, with its row count when known: "the 30 other rows", "all 40 rows", "12 rows whose …". */
export function comparisonPhrase(claim: Claim, count?: number): string {
  const nounText = noun(claim);
  const counted = count === undefined ? '' : `${countOf(count)} `;
  const comparison = claim.comparison;
  if (!comparison || comparison.kind === 'rest') return `the ${counted}other ${nounText}`;
  if (comparison.kind === 'all') return `all ${counted}${nounText}`;
  if (comparison.kind === 'group') return `${counted}${groupPhrase(comparison.group, nounText)}`;
  return `an even split`;
}

function differenceText(claim: Claim): ClaimText {
  const segment = claim.segment as ClaimGroup;
  const rows = groupPhrase(segment, noun(claim));
  const measure = metricPhrase(claim);
  const value = formatMetricValue(claim, claim.value);
  const other = formatMetricValue(claim, claim.comparison_value);
  const ratio = ratioText(claim.value, claim.comparison_value);
  // one step of an ordered scale far below the others is a drop at that step (a level most players never finish)
  const dip =
    claim.direction === 'lower' && typeof segment.value === 'number' && segment.grain === undefined && claim.comparison?.kind === 'rest';
  const title = dip
    ? `The ${measure} drops to ${value} for ${rows}, against ${other} for the others${ratio ? ` (${ratio})` : ''}`
    : `${capitalise(rows)} have a ${claim.direction} ${measure}: ${value} vs ${other}${ratio ? ` (${ratio})` : ''}`;
  const support = claim.n
    ? `Over ${countOf(claim.n.segment)} ${rows}, the ${measure} is ${value}, against ${other} for ${comparisonPhrase(claim, claim.n.comparison)}`
    : `The ${measure} is ${value} for ${rows}, against ${other} for ${comparisonPhrase(claim)}`;
  return { title, description: `${support}${evidence(claim, ratio ? [ratio] : [])}.` };
}

function shareText(claim: Claim): ClaimText {
  const segment = claim.segment as ClaimGroup;
  const nounText = noun(claim);
  // a named value stands alone ("Network", "September"); a yes/no value, a range or a list reads as its rows
  const value = segment.value;
  const yesNo = typeof value === 'boolean' || (typeof value === 'string' && (YES.test(value) || NO.test(value)) && !/^\d$/.test(value));
  const named = value !== undefined && !yesNo;
  const who = named ? valueName(segment, segment.value as ClaimScalar) : groupPhrase(segment, nounText);
  const have = named ? 'has' : 'have';
  const label = columnWords(segment.label, segment.column);
  if (claim.metric.kind === 'sum') {
    const total = metricPhrase(claim).replace(/^total /, '');
    const title = `${capitalise(who)} accounts for ${formatPercent(claim.value)} of all ${total}, from ${formatPercent(claim.comparison_value)} of the ${nounText}`;
    const description = `${capitalise(groupPhrase(segment, nounText))} hold ${formatPercent(claim.value)} of the total ${total} while making up ${formatPercent(claim.comparison_value)} of the ${nounText}${evidence(claim, claim.n ? [`${countOf(claim.n.segment)} ${nounText}`] : [])}.`;
    return { title, description };
  }
  const groups = claim.comparison?.kind === 'even' ? claim.comparison.groups : undefined;
  const lift = groups ? claim.value * groups : undefined;
  const title =
    claim.direction === 'higher'
      ? `${capitalise(who)} ${have} the most ${nounText}: ${formatPercent(claim.value)} of all${lift ? ` (${formatNumber(lift)}× an even split)` : ''}`
      : `${capitalise(who)} ${have} fewer ${nounText} than ${groups ? 'an even split' : 'the rest'}: ${formatPercent(claim.value)} of all, against ${formatPercent(claim.comparison_value)}`;
  const rows = capitalise(groupPhrase(segment, nounText));
  const size = claim.n
    ? `${rows} number ${countOf(claim.n.segment)}, ${formatPercent(claim.value)} of all ${nounText}`
    : `${rows} are ${formatPercent(claim.value)} of all ${nounText}`;
  const description = `${size}${groups ? `, against ${formatPercent(1 / groups)} if the ${groups} ${label} values shared them evenly` : ''}${evidence(claim)}.`;
  return { title, description };
}

function axisName(claim: Claim): string {
  const series = claim.series;
  if (!series) return 'time';
  return columnWords(series.label, series.column);
}

function stepName(claim: Claim, value: ClaimScalar | undefined): string {
  if (value === undefined) return '';
  const series = claim.series;
  return valueName({ grain: series?.grain }, value);
}

function perPeriod(claim: Claim): string {
  const grain = claim.series?.grain;
  if (!grain || !isPeriodGrain(grain)) return '';
  return ` per ${grain}`;
}

function populationSuffix(claim: Claim): string {
  return claim.segment ? ` for ${groupPhrase(claim.segment, noun(claim))}` : '';
}

/** How a calendar axis is followed in words. */
const CALENDAR_COURSE: Readonly<Record<string, string>> = {
  hour_of_day: 'through the day',
  day_of_week: 'through the week',
  month_of_year: 'through the year',
};

/** The last step of a series' range (`to` is exclusive): the period before it, or the value before it. */
function lastStepOf(claim: Claim): ClaimScalar | undefined {
  const to = claim.series?.to;
  const grain = claim.series?.grain;
  if (typeof to === 'number') return to - 1;
  if (typeof to === 'string' && isPeriodGrain(grain)) return previousPeriodStart(to, grain);
  return undefined;
}

function trendText(claim: Claim): ClaimText {
  const measure = `${metricPhrase(claim)}${perPeriod(claim)}`;
  const fit = claim.fit;
  // a claim from outside may carry no fit: its series bounds name the periods, or none are named
  const first = stepName(claim, fit?.first_period ?? claim.series?.from);
  const last = stepName(claim, fit?.last_period ?? lastStepOf(claim));
  const at = (value: string, step: string) => (step ? `${value} at ${step}` : value);
  const verb = claim.direction === 'higher' ? 'rose' : 'fell';
  const start = formatMetricValue(claim, claim.comparison_value);
  const end = formatMetricValue(claim, claim.value);
  const change =
    Math.abs(claim.comparison_value) >= MIN_RATIO_BASE * Math.abs(claim.value) && claim.comparison_value !== 0
      ? (claim.value - claim.comparison_value) / Math.abs(claim.comparison_value)
      : undefined;
  const changeText = change !== undefined && Number.isFinite(change) ? ` (${change > 0 ? '+' : ''}${formatPercent(change)})` : '';
  const ordered =
    claim.series?.grain && !isPeriodGrain(claim.series.grain)
      ? true
      : claim.series?.grain === undefined && !/year|date|time|period/i.test(axisName(claim));
  const along = CALENDAR_COURSE[claim.series?.grain ?? ''] ?? `with ${axisName(claim)}`;
  const title = ordered
    ? `${capitalise(measure)}${populationSuffix(claim)} ${claim.direction === 'higher' ? 'rises' : 'falls'} ${along}: from ${at(start, first)} to ${at(end, last)}`
    : `${capitalise(measure)}${populationSuffix(claim)} ${verb} from ${start} to ${end}${first && last ? ` between ${first} and ${last}` : ''}${changeText}`;
  const shape = fit
    ? fit.r2 >= STEADY_TREND_R2
      ? `a steady, close to linear ${claim.direction === 'higher' ? 'rise' : 'fall'} (r² = ${fit.r2.toFixed(2)} over ${fit.periods} ${ordered ? 'steps' : 'periods'})`
      : `a ${claim.direction === 'higher' ? 'rise' : 'fall'} with ups and downs around the fitted line (r² = ${fit.r2.toFixed(2)} over ${fit.periods} ${ordered ? 'steps' : 'periods'})`
    : '';
  const description = `Measured per period of ${axisName(claim)}, the ${measure}${populationSuffix(claim)} goes from ${at(start, first)} to ${at(end, last)}${shape ? `: ${shape}` : ''}${evidence(claim)}.`;
  return { title, description };
}

function windowName(claim: Claim, window: { from: ClaimScalar; to: ClaimScalar } | undefined): string {
  if (!window) return 'the other periods';
  const grain = claim.series?.grain;
  if (typeof window.from === 'number' && typeof window.to === 'number') {
    const last = window.to - 1;
    return last === window.from ? `${window.from}` : `${window.from}–${last}`;
  }
  if (isPeriodGrain(grain) && typeof window.from === 'string') {
    const lastStart = previousPeriodStart(String(window.to), grain);
    return lastStart === window.from
      ? periodName(window.from, grain)
      : `${periodName(window.from, grain)} to ${periodName(lastStart, grain).replace(/^the week of /, '')}`;
  }
  return `${String(window.from)} to before ${String(window.to)}`;
}

function shiftText(claim: Claim): ClaimText {
  const measure = `${metricPhrase(claim)}${perPeriod(claim)}`;
  const inside = formatMetricValue(claim, claim.value);
  const outside = formatMetricValue(claim, claim.comparison_value);
  const when = windowName(claim, claim.window);
  const before = claim.baseline ? windowName(claim, claim.baseline) : 'the other periods';
  const ratio = ratioText(claim.value, claim.comparison_value);
  const change =
    Math.abs(claim.comparison_value) >= MIN_RATIO_BASE * Math.abs(claim.value) && claim.comparison_value !== 0
      ? (claim.value - claim.comparison_value) / Math.abs(claim.comparison_value)
      : undefined;
  const changeText = change !== undefined && Number.isFinite(change) ? `${change > 0 ? '+' : ''}${formatPercent(change)}` : undefined;
  // a short window at twice the usual level or more is a spike; below half, a slump
  const spike = claim.value > 0 && claim.comparison_value > 0 && claim.value >= 2 * claim.comparison_value;
  const slump = claim.value >= 0 && claim.comparison_value > 0 && claim.value <= 0.5 * claim.comparison_value;
  const verb = claim.direction === 'higher' ? (spike ? 'spiked to' : 'peaked at') : slump ? 'slumped to' : 'dipped to';
  const title = claim.baseline
    ? `${capitalise(measure)}${populationSuffix(claim)} ${claim.direction === 'higher' ? 'rose' : 'fell'} from ${outside} (${before}) to ${inside} (${when})${changeText ? `, ${changeText}` : ''}`
    : `${capitalise(measure)}${populationSuffix(claim)} ${verb} ${inside} in ${when}, against ${outside} in ${before}${ratio ? ` (${ratio})` : ''}`;
  const description = `Measured per period of ${axisName(claim)}, the ${measure}${populationSuffix(claim)} averages ${inside} over ${when}, against ${outside} over ${before}${evidence(claim, claim.n ? [`${claim.n.segment} vs ${claim.n.comparison ?? 0} periods`] : [])}.`;
  return { title, description };
}

function correlationText(claim: Claim): ClaimText {
  const y = splitUnit(claim.metric.label || claim.metric.column || '').words;
  const x = splitUnit(claim.x?.label || claim.x?.column || '').words;
  const strength = Math.abs(claim.value) >= 0.7 ? 'strongly' : Math.abs(claim.value) >= 0.4 ? 'moderately' : 'weakly';
  const sign = claim.value >= 0 ? 'positively' : 'negatively';
  const title = `${capitalise(x)} and ${y} are ${strength} ${sign} correlated (r = ${claim.value.toFixed(2)})`;
  const description = `Across ${countOf(claim.n?.segment)} ${noun(claim)}${populationSuffix(claim).replace(/^ for /, ' among ')}, higher ${x} goes with ${claim.value >= 0 ? 'higher' : 'lower'} ${y}: Pearson r = ${claim.value.toFixed(2)}${evidence(claim)}.`;
  return { title, description };
}

/**
 * The drivers of a change: "Revenue per quarter rose by $120k from Q2 2024 to Q3 2024; orders whose
 * region is West account for 68.0% of the rise ($81.6k)".
 */
function contributionText(claim: Claim): ClaimText {
  const measure = `${metricPhrase(claim)}${claim.metric.kind === 'count' || claim.metric.kind === 'sum' ? perPeriod(claim) : ''}`;
  const segment = claim.segment as ClaimGroup;
  const who = groupPhrase(segment, noun(claim));
  const rose = claim.direction === 'higher';
  const change = formatMetricValue(claim, Math.abs(claim.comparison_value));
  const part = formatMetricValue(claim, Math.abs(claim.value));
  const share = claim.comparison_value !== 0 ? claim.value / claim.comparison_value : Number.NaN;
  const before = windowName(claim, claim.baseline);
  const after = windowName(claim, claim.window);
  const movement = rose ? 'rise' : 'fall';
  const title = `${capitalise(measure)} ${rose ? 'rose' : 'fell'} by ${change} from ${before} to ${after}; ${who} account for ${formatPercent(share)} of the ${movement} (${part})`;
  const description = `Between ${before} and ${after} the ${measure} ${rose ? 'rose' : 'fell'} by ${change}; the part of ${who} ${rose ? 'rose' : 'fell'} by ${part}, ${formatPercent(share)} of the whole ${movement} — more than their size alone would give${evidence(claim, claim.n ? [`${countOf(claim.n.segment)} of ${countOf(claim.n.segment + (claim.n.comparison ?? 0))} ${noun(claim)} in the two windows`] : [])}.`;
  return { title, description };
}

/**
 * Record-level outliers: "3 orders have an order total of $20,000 or more, far above the rest: $23,400
 * on average, 48.8× the median of the others ($480); they hold 9.0% of all order total".
 */
function outlierText(claim: Claim): ClaimText {
  const segment = claim.segment as ClaimGroup;
  const high = segment.from !== undefined;
  const label = splitUnit(columnWords(claim.metric.label, claim.metric.column ?? '')).words;
  const threshold = formatMetricValue(claim, Number(high ? segment.from : segment.to));
  const count = claim.n?.segment;
  const rows = count !== undefined ? `${countOf(count)} ${count === 1 ? singular(noun(claim)) : noun(claim)}` : capitalise(noun(claim));
  const have = count === 1 ? 'has' : 'have';
  const mean = formatMetricValue(claim, claim.value);
  const median = formatMetricValue(claim, claim.comparison_value);
  const ratio = ratioText(claim.value, claim.comparison_value);
  const held =
    claim.share_of_total !== undefined
      ? `; ${count === 1 ? 'it holds' : 'they hold'} ${formatPercent(claim.share_of_total)} of the total ${label}`
      : '';
  const title = high
    ? `${rows} ${have} ${article(label)} ${label} of ${threshold} or more, far above the rest: ${mean}${count === 1 ? '' : ' on average'}${ratio ? `, ${ratio} the median of the others (${median})` : `, against a median of ${median}`}${held}`
    : `${rows} ${have} ${article(label)} ${label} under ${threshold}, far below the rest: ${mean}${count === 1 ? '' : ' on average'}, against a median of ${median} for the others${held}`;
  const among =
    claim.n?.comparison !== undefined ? ` of ${countOf(claim.n.segment + claim.n.comparison)} ${noun(claim)}` : ` ${noun(claim)}`;
  const description = `Beyond ${threshold} lie ${count !== undefined ? countOf(count) : 'a few'}${among}: past the far-out fence (three interquartile ranges ${high ? 'above the upper' : 'below the lower'} quartile), where the spread of the other ${noun(claim)} puts almost none${evidence(claim)}.`;
  return { title, description };
}

/** "a" or "an" before a word (by its first letter: "an amount", "a price"). */
function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** "orders" → "order", for one row. */
function singular(plural: string): string {
  if (/ies$/.test(plural)) return `${plural.slice(0, -3)}y`;
  if (/(ss|us)$/.test(plural)) return plural;
  return plural.replace(/s$/, '');
}

/** The insight text a claim states. */
export function renderClaim(claim: Claim): ClaimText {
  switch (claim.kind) {
    case 'difference':
      return differenceText(claim);
    case 'share':
      return shareText(claim);
    case 'trend':
      return trendText(claim);
    case 'shift':
      return shiftText(claim);
    case 'correlation':
      return correlationText(claim);
    case 'contribution':
      return contributionText(claim);
    case 'outlier':
      return outlierText(claim);
  }
}

/** The unit a claim's values are written in, as a chart's value axis needs it. */
export type MetricUnit = { kind: 'percent' } | { kind: 'money'; symbol: string } | { kind: 'unit'; text: string } | { kind: 'none' };

/** Percent for rates and shares, money with its symbol, a duration's or a label's unit, else none (as `formatMetricValue` writes them). */
export function metricUnit(claim: Claim): MetricUnit {
  if (claim.kind === 'share' || isShareMetric(claim)) return { kind: 'percent' };
  const currency = CURRENCY.exec(claim.metric.label)?.[1];
  if (currency) return { kind: 'money', symbol: SYMBOL[currency] ?? '' };
  if (claim.metric.kind === 'duration_mean' || claim.metric.kind === 'duration_median')
    return { kind: 'unit', text: claim.metric.unit ?? 'days' };
  const { unit } = splitUnit(claim.metric.label);
  return unit && unit !== '%' ? { kind: 'unit', text: unit } : { kind: 'none' };
}

/** A group's column as a person names it ("device", "ordered at"). */
export function groupColumnWords(group: Pick<ClaimGroup, 'label' | 'column'>): string {
  return columnWords(group.label, group.column);
}

/** What one row of the claim is, in the plural ("sessions"; "rows" when the claim names none). */
export function claimNoun(claim: Claim): string {
  return noun(claim);
}
