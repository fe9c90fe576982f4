/**
 * Whether an insight's words agree with its claim: the direction they state, the segment they name,
 * the measure they talk about, and every number of the title. Text rendered from the claim agrees by
 * construction; a model's own words are held to the same rules, and text that disagrees is rejected.
 */
import type { Claim } from '../../domain/index.js';
import { metricPhrase, valueName } from './claim-text.js';

const HIGHER_WORDS = /\b(higher|more|greater|larger|bigger|increas\w*|rose|rises|rising|grew|grow\w*|above|up|exceed\w*|longer|slower|peak\w*|spike\w*|most|highest|top|strongly positive|positively)\b/i;
const LOWER_WORDS = /\b(lower|less|fewer|smaller|decreas\w*|fell|falls|falling|declin\w*|drop\w*|dipped|slump\w*|below|down|shorter|faster|least|lowest|bottom|negatively)\b/i;

/** Numbers as written: 30.5, 1,470, -0.77, 2.9 (a 2.9× ratio), 41% … */
function numbersIn(text: string): Array<{ value: number; percent: boolean; text: string }> {
  const numbers: Array<{ value: number; percent: boolean; text: string }> = [];
  for (const match of text.matchAll(/(?<![\p{L}\d.])([-−]?\d[\d,]*(?:\.\d+)?)\s*(%|[kKmMbB]\b)?/gu)) {
    const raw = (match[1] as string).replace(/−/g, '-').replace(/,/g, '');
    const suffix = match[2];
    let value = Number(raw);
    if (!Number.isFinite(value)) continue;
    if (suffix === 'k' || suffix === 'K') value *= 1e3;
    if (suffix === 'm' || suffix === 'M') value *= 1e6;
    if (suffix === 'b' || suffix === 'B') value *= 1e9;
    numbers.push({ value, percent: suffix === '%', text: match[0].trim() });
  }
  return numbers;
}

/** Every number the claim can account for (its values, their ratio and difference, support, test, periods). */
function claimNumbers(claim: Claim): number[] {
  const numbers = [claim.value, claim.comparison_value];
  if (claim.comparison_value !== 0) numbers.push(claim.value / claim.comparison_value, claim.comparison_value / claim.value);
  numbers.push(claim.value - claim.comparison_value, Math.abs(claim.value - claim.comparison_value));
  if (claim.comparison_value !== 0) numbers.push((claim.value - claim.comparison_value) / Math.abs(claim.comparison_value));
  if (claim.n) numbers.push(claim.n.segment, ...(claim.n.comparison !== undefined ? [claim.n.comparison, claim.n.segment + claim.n.comparison] : []));
  if (claim.test) numbers.push(claim.test.statistic, claim.test.p_value, ...(claim.test.df ? [claim.test.df] : []));
  if (claim.fit) numbers.push(claim.fit.r2, claim.fit.slope, claim.fit.periods);
  if (claim.comparison?.kind === 'even') numbers.push(claim.comparison.groups, claim.value * claim.comparison.groups);
  for (const bound of [claim.segment?.value, claim.segment?.from, claim.segment?.to, claim.window?.from, claim.window?.to, claim.baseline?.from, claim.baseline?.to, claim.series?.from, claim.series?.to, claim.fit?.first_period, claim.fit?.last_period]) {
    if (typeof bound === 'number') numbers.push(bound, bound - 1);
    if (typeof bound === 'string') for (const part of bound.match(/\d+/g) ?? []) numbers.push(Number(part));
  }
  return numbers.filter((value) => Number.isFinite(value));
}

/** Same number as written: within rounding to what is shown (2% relative, or the last digit written). */
function matches(written: { value: number; percent: boolean; text: string }, candidate: number): boolean {
  const decimals = /\.(\d+)/.exec(written.text)?.[1]?.length ?? 0;
  const step = 10 ** -decimals;
  const values = written.percent ? [written.value / 100, written.value] : [written.value, written.value / 100];
  return values.some((value) => {
    const scale = written.percent && value === written.value / 100 ? step / 100 : step;
    return Math.abs(Math.abs(value) - Math.abs(candidate)) <= Math.max(scale * 0.51, Math.abs(candidate) * 0.02);
  });
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 3);
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
  if (measureWords.size > 0 && !words(all).some((word) => [...measureWords].some((measure) => word.startsWith(measure.slice(0, Math.max(4, measure.length - 2))))))
    problems.push(`the text does not talk about the claim's measure (${claim.metric.label || claim.metric.column || claim.metric.kind})`);
  const accounted = claimNumbers(claim);
  // times of day (20:00, 23:59) are positions on the clock the segment names, not measurements
  const title = text.name.replace(/\b\d{1,2}:\d{2}\b/g, ' ');
  for (const written of numbersIn(title)) {
    // calendar years and small counts of periods are labels, not measurements
    if (!written.percent && Number.isInteger(written.value) && written.value >= 1900 && written.value <= 2100) continue;
    if (!accounted.some((candidate) => matches(written, candidate)))
      problems.push(`the title states ${written.text}, which the claim does not hold`);
  }
  return problems;
}
