/**
 * Whether an insight's words agree with its claim: the direction they state, the segment they name,
 * the measure they talk about, and every number of the title. Text rendered from the claim agrees by
 * construction; a model's own words are held to the same rules, and text that disagrees is rejected.
 */
import type { Claim } from '../../domain/index.js';
import { metricPhrase, valueName } from './claim-text.js';

const HIGHER_WORDS =
  /\b(higher|more|greater|larger|bigger|increas\w*|rose|rises|rising|grew|grow\w*|above|up|exceed\w*|longer|slower|peak\w*|spike\w*|most|highest|top|strongly positive|positively)\b/i;
const LOWER_WORDS =
  /\b(lower|less|fewer|smaller|decreas\w*|fell|falls|falling|declin\w*|drop\w*|dipped|slump\w*|below|down|shorter|faster|least|lowest|bottom|negatively)\b/i;

interface WrittenNumber {
  value: number;
  percent: boolean;
  /** Written as money ($1,900) or with a thousands separator: an amount, never a calendar year. */
  amount: boolean;
  text: string;
  /** 1, or 1e3 / 1e6 / 1e9 for a number written with k, M or B: its last digit is worth that much more. */
  unit: number;
}

/** Numbers as written: 30.5, 1,470, -0.77, 2.9 (a 2.9× ratio), 41%, $1.1M … */
function numbersIn(text: string): WrittenNumber[] {
  const numbers: WrittenNumber[] = [];
  for (const match of text.matchAll(/(?<![\p{L}\d.])([-−]?\d[\d,]*(?:\.\d+)?)\s*(%|[kKmMbB]\b)?/gu)) {
    const raw = (match[1] as string).replace(/−/g, '-').replace(/,/g, '');
    const suffix = match[2];
    const value = Number(raw);
    if (!Number.isFinite(value)) continue;
    const unit =
      suffix === 'k' || suffix === 'K' ? 1e3 : suffix === 'm' || suffix === 'M' ? 1e6 : suffix === 'b' || suffix === 'B' ? 1e9 : 1;
    const amount = /[$€£]\s*$/.test(text.slice(0, match.index)) || (match[1] as string).includes(',');
    numbers.push({ value: value * unit, percent: suffix === '%', amount, text: match[0].trim(), unit });
  }
  return numbers;
}

/**
 * Every number the claim can account for: what it measured (its values, their ratio, difference and
 * change, an even split's lift) and what labels it (support, test, fit, the bounds of its groups and periods).
 */
function claimNumbers(claim: Claim): { measured: number[]; labels: number[] } {
  const measured = [claim.value, claim.comparison_value];
  if (claim.comparison_value !== 0) measured.push(claim.value / claim.comparison_value, claim.comparison_value / claim.value);
  measured.push(claim.value - claim.comparison_value, Math.abs(claim.value - claim.comparison_value));
  if (claim.comparison_value !== 0) measured.push((claim.value - claim.comparison_value) / Math.abs(claim.comparison_value));
  if (claim.comparison?.kind === 'even') measured.push(claim.value * claim.comparison.groups);
  if (claim.share_of_total !== undefined) measured.push(claim.share_of_total);
  const labels: number[] = [];
  if (claim.comparison?.kind === 'even') labels.push(claim.comparison.groups);
  if (claim.n)
    labels.push(claim.n.segment, ...(claim.n.comparison !== undefined ? [claim.n.comparison, claim.n.segment + claim.n.comparison] : []));
  if (claim.test) labels.push(claim.test.statistic, claim.test.p_value, ...(claim.test.df ? [claim.test.df] : []));
  if (claim.fit) labels.push(claim.fit.r2, claim.fit.slope, claim.fit.periods);
  for (const bound of [
    claim.segment?.value,
    claim.segment?.from,
    claim.segment?.to,
    claim.window?.from,
    claim.window?.to,
    claim.baseline?.from,
    claim.baseline?.to,
    claim.series?.from,
    claim.series?.to,
    claim.fit?.first_period,
    claim.fit?.last_period,
  ]) {
    if (typeof bound === 'number') labels.push(bound, bound - 1);
    if (typeof bound === 'string') for (const part of bound.match(/\d+/g) ?? []) labels.push(Number(part));
  }
  const finite = (numbers: number[]) => numbers.filter((value) => Number.isFinite(value));
  return { measured: finite(measured), labels: finite(labels) };
}

/** Same number as written: within rounding to what is shown (2% relative, or the last digit written). */
/**
 * Same number as written: within rounding to what is shown (2% relative, or half the last digit written).
 * A measured number may be read either way between a share and a percentage (30.5% for 0.305, or for a
 * metric kept in percent); a label (a count, a bound, a test statistic) only as written.
 */
function matches(written: WrittenNumber, candidate: number, measured: boolean): boolean {
  const decimals = /\.(\d+)/.exec(written.text)?.[1]?.length ?? 0;
  // $1.1M is rounded to a tenth of a million
  const step = 10 ** -decimals * written.unit;
  // the other reading is rounded to its own last digit over 100 — never a whole 0.5, or any small integer would match any rate
  const readings = written.percent ? [{ value: written.value / 100, step: step / 100 }] : [{ value: written.value, step }];
  if (measured && written.unit === 1)
    readings.push(written.percent ? { value: written.value, step } : { value: written.value / 100, step: step / 100 });
  if (!measured && written.percent) return false;
  return readings.some(
    ({ value, step: last }) => Math.abs(Math.abs(value) - Math.abs(candidate)) <= Math.max(last * 0.51, Math.abs(candidate) * 0.02),
  );
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 3);
}

/** A value as a whole token of the text: "1" names region 1, not the 1 of $5.12 or of 1,000. */
function tokenPattern(value: string): RegExp {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}.,])${escaped}(?![\\p{L}\\p{N}]|[.,]\\d)`, 'giu');
}

/** The numbers written in `text` that the claim cannot account for (its values, support, test, bounds, named values). */
function unmatchedNumbers(claim: Claim, text: string): string[] {
  const unmatched: string[] = [];
  const { measured, labels } = claimNumbers(claim);
  // times of day (20:00, 23:59) and dates (2024-02-26, the start of a window's last week) are positions the claim names, not measurements
  // and so are the digits of a value the claim names (app version 3.4.0), in a group or in the measure's condition,
  // and of the names the claim gives its measure and groups ("week-5 retention (active on days 28-34)")
  const conditions = [claim.metric.condition, ...claim.metric.filters];
  const named = [
    claim.metric.label,
    claim.segment?.label,
    claim.series?.label,
    claim.x?.label,
    claim.comparison?.kind === 'group' ? claim.comparison.group.label : undefined,
    ...[claim.segment, claim.comparison?.kind === 'group' ? claim.comparison.group : undefined].flatMap((group) => [
      group?.value,
      ...(group?.values ?? []),
    ]),
    ...conditions.map((condition) => condition?.value),
  ].filter((value): value is string => typeof value === 'string' && /\d/.test(value));
  const title = named
    .reduce((title, value) => title.replace(tokenPattern(value), ' '), text)
    .replace(/\b\d{1,2}:\d{2}\b/g, ' ')
    .replace(/\b\d{4}-\d{2}-\d{2}\b/g, ' ');
  for (const written of numbersIn(title)) {
    // calendar years and small counts of periods are labels, not measurements
    if (!written.percent && !written.amount && Number.isInteger(written.value) && written.value >= 1900 && written.value <= 2100) continue;
    if (!measured.some((candidate) => matches(written, candidate, true)) && !labels.some((candidate) => matches(written, candidate, false)))
      unmatched.push(written.text);
  }
  return unmatched;
}

/**
 * The numbers written in `text` that none of the claims accounts for: a recommendation's title and
 * description may quote the claims of the insights it addresses, and nothing else.
 */
export function numbersOutsideClaims(text: string, claims: readonly Claim[]): string[] {
  if (claims.length === 0) return [];
  const perClaim = claims.map((claim) => new Set(unmatchedNumbers(claim, text)));
  const [first, ...rest] = perClaim as [Set<string>, ...Set<string>[]];
  return [...first].filter((written) => rest.every((other) => other.has(written)));
}

/** Disagreements between the text and the claim (empty: they agree). */
export function textDisagreements(claim: Claim, text: { name: string; description: string }): string[] {
  const problems: string[] = [];
  const all = `${text.name} ${text.description}`;
  const says = (pattern: RegExp) => pattern.test(all);
  const higher = says(HIGHER_WORDS);
  const lower = says(LOWER_WORDS);
  if (claim.direction === 'higher' && lower && !higher) problems.push('the text says lower where the claim says higher');
  if (claim.direction === 'lower' && higher && !lower) problems.push('the text says higher where the claim says lower');
  const segmentValue = claim.segment?.value;
  if (typeof segmentValue === 'string' && segmentValue.trim().length >= 2) {
    const named = valueName(claim.segment ?? { grain: undefined }, segmentValue).toLowerCase();
    if (!all.toLowerCase().includes(named) && !all.toLowerCase().includes(segmentValue.trim().toLowerCase()))
      problems.push(`the text does not name the segment "${segmentValue.trim()}"`);
  }
  const measureWords = new Set([...words(claim.metric.label), ...words(claim.metric.column ?? ''), ...words(metricPhrase(claim))]);
  measureWords.delete('average');
  measureWords.delete('total');
  measureWords.delete('number');
  measureWords.delete('share');
  measureWords.delete('rate');
  if (
    measureWords.size > 0 &&
    !words(all).some((word) => [...measureWords].some((measure) => word.startsWith(measure.slice(0, Math.max(4, measure.length - 2)))))
  )
    problems.push(`the text does not talk about the claim's measure (${claim.metric.label || claim.metric.column || claim.metric.kind})`);
  for (const written of unmatchedNumbers(claim, text.name)) problems.push(`the title states ${written}, which the claim does not hold`);
  return problems;
}
