/**
 * A claim's chart from the rows of the verifier's chart statement (claim-chart-sql.ts) or of its
 * recount: bounded to `CHART_MAX_POINTS`, each point labelled as a person names the value and marked
 * with what it is in the claim (the segment, the comparison, the pooled others, the missing values, the
 * claimed window). Pure: the statement runs in check-claim.ts.
 */
import {
  CHART_MAX_POINTS,
  type Claim,
  type ClaimChart,
  type ClaimChartPoint,
  type ClaimChartReference,
  type ClaimGroup,
  type ClaimScalar,
} from '../../domain/index.js';
import type { Row } from '../../warehouse/port.js';
import { MONTH_NAMES, WEEKDAY_NAMES, isPeriodGrain, isoMillis, periodPosition, periodStart } from '../statistics/periods.js';
import type { ChartSqlShape } from './claim-chart-sql.js';
import { CORRELATION_BINS } from './claim-chart-sql.js';
import { type ClaimRecount, inWindow, num, periodKey, seriesMinRows, seriesPoints } from './claim-recount.js';
import { claimNoun, formatNumber, groupColumnWords, groupPhrase, valueName } from './claim-text.js';

export type ChartOutcome = { chart: ClaimChart; unavailable?: undefined } | { chart?: undefined; unavailable: string };

type Key = ClaimChartPoint['key'];

/** A cell as a stored key: plain scalars, dates as ISO text, big integers as numbers. */
function keyOf(cell: unknown): Key {
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'bigint') return Number(cell);
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (typeof cell === 'boolean') return cell;
  if (cell instanceof Date) return cell.toISOString();
  return String(cell).slice(0, 200);
}

/** Comparable text of a key or a claimed value: `true`, `7.95`, dates as epoch milliseconds. */
function comparable(value: ClaimScalar | null): string | undefined {
  if (value === null) return undefined;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return String(value);
  const text = value.trim();
  if (/^(true|false)$/i.test(text)) return text.toLowerCase();
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const millis = isoMillis(text);
    if (Number.isFinite(millis)) return `@${millis}`;
  }
  if (text !== '' && Number.isFinite(Number(text))) return String(Number(text));
  return text;
}

function ordered(value: ClaimScalar | null): number | undefined {
  if (value === null || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return value;
  const millis = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? isoMillis(value) : Number(value);
  return Number.isFinite(millis) ? millis : undefined;
}

/** Whether a value of the group's column falls in the group. */
export function keyInGroup(group: ClaimGroup, key: Key): boolean {
  if (group.missing) return key === null;
  if (key === null) return false;
  const wanted = comparable(key);
  if (group.values) return group.values.some((value) => comparable(value) === wanted);
  if (group.value !== undefined) return comparable(group.value) === wanted;
  const position = ordered(key);
  if (position === undefined) return false;
  const from = group.from === undefined ? undefined : ordered(group.from);
  const to = group.to === undefined ? undefined : ordered(group.to);
  return (from === undefined || position >= from) && (to === undefined || position < to);
}

function noValueLabel(group: Pick<ClaimGroup, 'label' | 'column'>): string {
  return `no ${groupColumnWords(group)}`;
}

interface GroupFigures {
  key: Key;
  n: number;
  vn: number;
  vs: number;
  vm: number | null;
  vd: number | null;
}

function figuresOf(row: Row, key: Key): GroupFigures {
  return { key, n: num(row.n) ?? 0, vn: num(row.vn) ?? 0, vs: num(row.vs) ?? 0, vm: num(row.vm), vd: num(row.vd) };
}

/** Whether a pooled group's value can be computed from its parts (a median or a distinct count cannot). */
function poolable(claim: Claim): boolean {
  return !['median', 'duration_median', 'distinct_count'].includes(claim.metric.kind);
}

/** The claim's metric on one group, as the recount measures it. */
function groupValue(claim: Claim, figures: Omit<GroupFigures, 'key'>, totals: { rows: number; sum: number }): number | null {
  const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : null);
  if (claim.kind === 'share') return claim.metric.kind === 'sum' ? ratio(figures.vs, totals.sum) : ratio(figures.n, totals.rows);
  switch (claim.metric.kind) {
    case 'count':
      return figures.n;
    case 'share':
      return ratio(figures.n, totals.rows);
    case 'distinct_count':
      return figures.vd;
    case 'median':
    case 'duration_median':
      return figures.vm;
    case 'sum':
      return figures.vs;
    default:
      return figures.vn > 0 ? figures.vs / figures.vn : null;
  }
}

/** The comparison drawn as a line across the bars: the other rows, all rows, an even split. */
function comparisonReference(claim: Claim, recount: ClaimRecount, drawnAsBars: boolean): ClaimChartReference[] {
  const comparison = claim.comparison;
  const value = recount.comparisonValue;
  const nounText = claimNoun(claim);
  if (!comparison) return [];
  if (comparison.kind === 'even') return [{ label: 'an even split', value: 1 / comparison.groups }];
  // the rest's share of the rows is the sum of the other bars, not a level to compare one bar with
  if (claim.kind === 'share' || value === null) return [];
  if (comparison.kind === 'rest') return [{ label: `the other ${nounText}`, value }];
  if (comparison.kind === 'all') return [{ label: `all ${nounText}`, value }];
  return drawnAsBars ? [] : [{ label: groupPhrase(comparison.group, nounText).slice(0, 200), value }];
}

function roleOf(claim: Claim, segment: ClaimGroup, key: Key): ClaimChartPoint['role'] {
  if (keyInGroup(segment, key)) return 'segment';
  const comparison = claim.comparison;
  if (comparison?.kind === 'group' && comparison.group.column === segment.column && keyInGroup(comparison.group, key)) return 'comparison';
  return key === null ? 'missing' : 'other';
}

/** `difference` / `share` by value: the largest groups, the claim's groups always, the rest pooled, the missing on its own. */
export function chartFromGroups(claim: Claim, rows: readonly Row[], truncated: boolean, recount: ClaimRecount): ChartOutcome {
  const segment = claim.segment;
  if (!segment) return { unavailable: 'the claim names no segment to group by' };
  if (truncated)
    return { unavailable: `${groupColumnWords(segment)} has more values than a chart can group (over ${formatNumber(rows.length)})` };
  const groups = rows.map((row) => figuresOf(row, keyOf(row.g)));
  if (groups.length === 0) return { unavailable: 'no rows pass the claim’s filters' };
  const totals = { rows: groups.reduce((sum, group) => sum + group.n, 0), sum: groups.reduce((sum, group) => sum + group.vs, 0) };
  const missing = groups.find((group) => group.key === null);
  const present = groups.filter((group) => group.key !== null);
  const room = CHART_MAX_POINTS - (missing ? 1 : 0);
  const marked = (group: GroupFigures) => roleOf(claim, segment, group.key) !== 'other';
  let kept = present;
  let pooled: GroupFigures[] = [];
  if (present.length > room) {
    // one slot for the pooled bar; the claim's own groups first, then the largest by rows (rows come largest first)
    const limit = room - 1;
    const chosen = new Set(present.filter(marked).slice(0, limit));
    for (const group of present) if (chosen.size < limit) chosen.add(group);
    kept = present.filter((group) => chosen.has(group));
    pooled = present.filter((group) => !chosen.has(group));
  }
  const point = (group: GroupFigures): ClaimChartPoint => ({
    key: group.key,
    label: group.key === null ? noValueLabel(segment) : valueName(segment, group.key).slice(0, 200),
    value: groupValue(claim, group, totals),
    rows: Math.round(group.n),
    role: roleOf(claim, segment, group.key),
  });
  const points = kept.map(point);
  let note: string | undefined;
  if (pooled.length > 0) {
    const sum = (pick: (group: GroupFigures) => number) => pooled.reduce((total, group) => total + pick(group), 0);
    const rowsPooled = sum((group) => group.n);
    if (poolable(claim))
      points.push({
        key: null,
        label: `${formatNumber(pooled.length)} other values`,
        value: groupValue(claim, { n: rowsPooled, vn: sum((group) => group.vn), vs: sum((group) => group.vs), vm: null, vd: null }, totals),
        rows: Math.round(rowsPooled),
        role: 'others',
      });
    else
      note = `${formatNumber(pooled.length)} smaller values (${formatNumber(rowsPooled)} ${claimNoun(claim)}) not drawn: a ${claim.metric.kind.replace('_', ' ')} does not pool`;
  }
  if (missing) points.push(point(missing));
  return {
    chart: {
      shape: 'bars',
      points,
      references: comparisonReference(
        claim,
        recount,
        points.some((candidate) => candidate.role === 'comparison'),
      ),
      ...(pooled.length > 0 && poolable(claim) ? { pooled_groups: pooled.length } : {}),
      ...(note ? { note } : {}),
    },
  };
}

const RANGE_ORDER = ['below', 'segment', 'above', 'missing'] as const;

/** A range segment: the rows below it, in it, above it and with no value, in that order. */
export function chartFromRanges(claim: Claim, rows: readonly Row[], recount: ClaimRecount): ChartOutcome {
  const segment = claim.segment;
  if (!segment) return { unavailable: 'the claim names no segment to group by' };
  const groups = rows.map((row) => figuresOf(row, keyOf(row.g)));
  const totals = { rows: groups.reduce((sum, group) => sum + group.n, 0), sum: groups.reduce((sum, group) => sum + group.vs, 0) };
  const name = (value: ClaimScalar) => valueName(segment, value);
  const labels: Record<(typeof RANGE_ORDER)[number], string> = {
    below: segment.from !== undefined ? `under ${name(segment.from)}` : '',
    segment:
      segment.from !== undefined && segment.to !== undefined
        ? `${name(segment.from)} to under ${name(segment.to)}`
        : segment.from !== undefined
          ? `${name(segment.from)} or more`
          : `under ${name(segment.to as ClaimScalar)}`,
    above: segment.to !== undefined ? `${name(segment.to)} or more` : '',
    missing: noValueLabel(segment),
  };
  const points: ClaimChartPoint[] = [];
  RANGE_ORDER.forEach((side, index) => {
    const group = groups.find((candidate) => candidate.key === side);
    if (!group || group.n === 0) return;
    points.push({
      key: null,
      label: labels[side],
      value: groupValue(claim, group, totals),
      rows: Math.round(group.n),
      role: side === 'segment' ? 'segment' : side === 'missing' ? 'missing' : 'other',
      x: index,
    });
  });
  if (points.length === 0) return { unavailable: 'no rows pass the claim’s filters' };
  return { chart: { shape: 'bars', points, references: comparisonReference(claim, recount, false) } };
}

const SHORT_MONTHS = MONTH_NAMES.map((month) => month.slice(0, 3));

/** A step of a series axis as a short label: "Mar 2024", "2024-Q1", "2024-03-04", "Mon", "Sep", "20:00", "12". */
export function seriesLabel(claim: Claim, key: string | number): string {
  const grain = claim.series?.grain;
  if (isPeriodGrain(grain) && typeof key === 'string') {
    const start = periodStart(key, grain);
    const date = new Date(isoMillis(key));
    switch (grain) {
      case 'year':
        return String(date.getUTCFullYear());
      case 'quarter':
        return `${date.getUTCFullYear()}-Q${Math.floor(date.getUTCMonth() / 3) + 1}`;
      case 'month':
        return `${SHORT_MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
      case 'hour':
        return start.slice(0, 16);
      default:
        return start;
    }
  }
  const numeric = Number(key);
  if (grain === 'day_of_week') return WEEKDAY_NAMES[(numeric === 0 ? 7 : numeric) - 1]?.slice(0, 3) ?? String(key);
  if (grain === 'month_of_year') return SHORT_MONTHS[numeric - 1] ?? String(key);
  if (grain === 'hour_of_day') return `${String(numeric).padStart(2, '0')}:00`;
  return typeof key === 'number' ? formatNumber(key, Number.isInteger(key)) : key;
}

function spanOf(claim: Claim, key: string | number): ClaimChartPoint['span'] {
  if (claim.window && inWindow(key, claim.window)) return 'window';
  if (claim.baseline && inWindow(key, claim.baseline)) return 'baseline';
  return undefined;
}

/** Averages whose periods are pooled by their rows; counts and totals stay "per period" by a plain mean. */
function weightedByRows(claim: Claim): boolean {
  return !['count', 'sum', 'distinct_count', 'median', 'duration_median'].includes(claim.metric.kind);
}

/**
 * A series longer than a chart holds, pooled: consecutive periods merged into one point, never across the
 * edge of the window or the baseline, the fewest periods per point that fit.
 */
export function poolSeries(points: readonly ClaimChartPoint[], weighted: boolean): { points: ClaimChartPoint[]; size: number } {
  if (points.length <= CHART_MAX_POINTS) return { points: [...points], size: 1 };
  const runs: ClaimChartPoint[][] = [];
  for (const point of points) {
    const last = runs.at(-1);
    if (last && last[0]?.span === point.span) last.push(point);
    else runs.push([point]);
  }
  let size = 2;
  while (runs.reduce((count, run) => count + Math.ceil(run.length / size), 0) > CHART_MAX_POINTS) size += 1;
  const merge = (chunk: ClaimChartPoint[]): ClaimChartPoint => {
    const first = chunk[0] as ClaimChartPoint;
    const rows = chunk.reduce((sum, point) => sum + point.rows, 0);
    const average = (pick: (point: ClaimChartPoint) => number | null | undefined): number | null => {
      const usable = chunk.filter((point) => typeof pick(point) === 'number');
      if (usable.length === 0) return null;
      const weight = (point: ClaimChartPoint) => (weighted ? point.rows : 1);
      const total = usable.reduce((sum, point) => sum + weight(point), 0);
      return total > 0 ? usable.reduce((sum, point) => sum + (pick(point) as number) * weight(point), 0) / total : null;
    };
    const segmentValue = chunk.some((point) => point.segment_value !== undefined) ? average((point) => point.segment_value) : undefined;
    return {
      key: first.key,
      label: first.label,
      value: average((point) => point.value),
      rows,
      role: first.role,
      x: chunk.reduce((sum, point) => sum + (point.x ?? 0), 0) / chunk.length,
      ...(segmentValue !== undefined ? { segment_value: segmentValue } : {}),
      ...(first.span ? { span: first.span } : {}),
    };
  };
  const pooled = runs.flatMap((run) => {
    const chunks: ClaimChartPoint[][] = [];
    for (let start = 0; start < run.length; start += size) chunks.push(run.slice(start, start + size));
    return chunks.map(merge);
  });
  return { points: pooled, size };
}

function poolingNote(claim: Claim, size: number): string | undefined {
  if (size <= 1) return undefined;
  const grain = claim.series?.grain;
  const unit = isPeriodGrain(grain) ? `${grain}s` : 'steps';
  return `each point averages ${size} consecutive ${unit} and is labelled by the first`;
}

/** `trend` / `shift`: the recount's periods as a line, the claimed window and baseline marked. */
export function chartFromSeries(claim: Claim, rows: readonly Row[], minSupport: number): ChartOutcome {
  const points: ClaimChartPoint[] = seriesPoints(claim, rows, seriesMinRows(claim, minSupport)).map((point) => {
    const span = spanOf(claim, point.key);
    return {
      key: point.key,
      label: seriesLabel(claim, point.key),
      value: point.value,
      rows: Math.round(point.rows),
      role: span === 'window' ? 'segment' : 'other',
      x: point.x,
      ...(span ? { span } : {}),
    };
  });
  if (points.length < 2) return { unavailable: 'fewer than two periods have enough rows to draw a line' };
  const { points: shown, size } = poolSeries(points, weightedByRows(claim));
  const note = poolingNote(claim, size);
  return {
    chart: { shape: 'line', points: shown, references: [], ...(size > 1 ? { periods_per_point: size } : {}), ...(note ? { note } : {}) },
  };
}

function positionOf(claim: Claim, period: unknown): number | null {
  const grain = claim.series?.grain;
  if (isPeriodGrain(grain)) return typeof period === 'string' ? periodPosition(period, grain) : null;
  return num(period);
}

/** `contribution`: the whole's metric and the segment's per period across both windows. */
export function chartFromContribution(claim: Claim, rows: readonly Row[]): ChartOutcome {
  const points: ClaimChartPoint[] = [];
  for (const row of rows) {
    const cell = row.p;
    const x = positionOf(claim, cell);
    if (x === null || cell === null || cell === undefined) continue;
    const key = periodKey(claim, cell);
    const span = spanOf(claim, key);
    points.push({
      key,
      label: seriesLabel(claim, key),
      value: num(row.v),
      rows: Math.round(num(row.n) ?? 0),
      role: span === 'window' ? 'segment' : 'other',
      x,
      segment_value: num(row.sv),
      ...(span ? { span } : {}),
    });
  }
  points.sort((left, right) => (left.x ?? 0) - (right.x ?? 0));
  if (points.length < 2) return { unavailable: 'fewer than two periods have rows to draw a line' };
  const { points: shown, size } = poolSeries(points, weightedByRows(claim));
  const note = poolingNote(claim, size);
  return {
    chart: { shape: 'line', points: shown, references: [], ...(size > 1 ? { periods_per_point: size } : {}), ...(note ? { note } : {}) },
  };
}

/** `correlation`: the mean of the measure per bin of the other, bins with too few pairs left out. */
export function chartFromBins(rows: readonly Row[], minSupport: number): ChartOutcome {
  const bins = new Map<number, { n: number; ys: number; xs: number; xlo: number; xhi: number }>();
  for (const row of rows) {
    // the largest x falls on the upper edge: it belongs to the last bin
    const bin = Math.min(CORRELATION_BINS - 1, Math.max(0, num(row.b) ?? 0));
    const n = num(row.n) ?? 0;
    const entry = bins.get(bin) ?? { n: 0, ys: 0, xs: 0, xlo: Number.POSITIVE_INFINITY, xhi: Number.NEGATIVE_INFINITY };
    entry.n += n;
    entry.ys += num(row.ys) ?? 0;
    entry.xs += num(row.xs) ?? 0;
    entry.xlo = Math.min(entry.xlo, num(row.xlo) ?? entry.xlo);
    entry.xhi = Math.max(entry.xhi, num(row.xhi) ?? entry.xhi);
    bins.set(bin, entry);
  }
  const all = [...bins.entries()].sort(([left], [right]) => left - right);
  const kept = all.filter(([, entry]) => entry.n >= minSupport);
  if (kept.length < 2) return { unavailable: `fewer than two bins of the other measure hold ${formatNumber(minSupport)} pairs or more` };
  const dropped = all.length - kept.length;
  const points: ClaimChartPoint[] = kept.map(([bin, entry]) => ({
    key: bin,
    label: entry.xlo === entry.xhi ? formatNumber(entry.xlo) : `${formatNumber(entry.xlo)}–${formatNumber(entry.xhi)}`,
    value: entry.ys / entry.n,
    rows: Math.round(entry.n),
    role: 'other',
    x: entry.xs / entry.n,
  }));
  return {
    chart: {
      shape: 'binned',
      points,
      references: [],
      ...(dropped > 0
        ? {
            note: `${formatNumber(dropped)} of ${formatNumber(all.length)} bins hold fewer than ${formatNumber(minSupport)} pairs and are not drawn`,
          }
        : {}),
    },
  };
}

function ordinal(rank: number): string {
  const tens = rank % 100;
  const last = rank % 10;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : last === 1 ? 'st' : last === 2 ? 'nd' : last === 3 ? 'rd' : 'th';
  return `${rank}${suffix}`;
}

/** `outlier`: each flagged row's value, most extreme first, against the others' median and the far-out fence. */
export function chartFromExtremes(claim: Claim, rows: readonly Row[], truncated: boolean, recount: ClaimRecount): ChartOutcome {
  const values = rows.map((row) => num(row.v)).filter((value): value is number => value !== null);
  if (values.length === 0) return { unavailable: 'no row passes the claimed threshold' };
  const high = claim.segment?.from !== undefined;
  const nounText = claimNoun(claim);
  const points: ClaimChartPoint[] = values.map((value, index) => ({
    key: index + 1,
    label: `${ordinal(index + 1)} ${high ? 'largest' : 'smallest'}`,
    value,
    rows: 1,
    role: 'segment',
    x: index,
  }));
  const references: ClaimChartReference[] = [];
  if (recount.comparisonValue !== null) references.push({ label: `median of the other ${nounText}`, value: recount.comparisonValue });
  if (recount.fence !== undefined && Number.isFinite(recount.fence)) references.push({ label: 'far-out fence', value: recount.fence });
  const flagged = Math.round(recount.segmentRows);
  return {
    chart: {
      shape: 'outlier',
      points,
      references,
      ...(truncated || flagged > values.length
        ? { note: `the ${formatNumber(values.length)} most extreme of ${formatNumber(flagged)} flagged ${nounText}` }
        : {}),
    },
  };
}

/** The chart from the rows of its statement. */
export function chartFromRows(
  claim: Claim,
  shape: ChartSqlShape,
  rows: readonly Row[],
  options: { truncated: boolean; recount: ClaimRecount; minSupport: number },
): ChartOutcome {
  switch (shape) {
    case 'groups':
      return chartFromGroups(claim, rows, options.truncated, options.recount);
    case 'ranges':
      return chartFromRanges(claim, rows, options.recount);
    case 'contribution':
      return chartFromContribution(claim, rows);
    case 'bins':
      return chartFromBins(rows, options.minSupport);
    case 'extremes':
      return chartFromExtremes(claim, rows, options.truncated, options.recount);
  }
}
