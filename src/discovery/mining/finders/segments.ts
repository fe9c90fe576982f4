/**
 * Segments: one grouped statement per grouping reads, for every group, its rows and every measure's
 * moments (outcome rates, means, durations), plus the totals. From it:
 *
 * - **gaps**: each group against the rest on each measure (two-proportion z for rates, Welch's t for
 *   means); the highest and the lowest group of each measure are candidates;
 * - **shares**: the largest group against an even split of the rows (binomial), and a group's share of
 *   a measure's total against its share of the rows (Welch's t on the per-row mean);
 * - **gradients**: over ordered groupings (levels, hours, months), the measure's group means fitted
 *   against the order (weighted least squares on the group means).
 *
 * A missing value is its own group, never pooled into "the rest": segments and rests are over rows
 * that have a value, and the claim says so with a not-null filter.
 */
import type { Claim, ClaimCondition, ClaimScalar } from '../../../domain/index.js';
import type { Row } from '../../../warehouse/port.js';
import type { SqlSyntax } from '../../../warehouse/sql-syntax/index.js';
import { binomialTest, linearFit, poolMoments, twoProportionZ, welchT, type TestResult } from '../../statistics/index.js';
import { type Candidate, type FinderOutput, emptyOutput, recordTest, unit } from '../candidate.js';
import { type Grouping, groupExpression, groupingKey, rangeFor, segmentFor } from '../groupings.js';
import {
  type MeasureFigures,
  type MeasureSpec,
  asMoments,
  claimMetricOf,
  measureAggregates,
  measureColumns,
  readFigures,
  restOf,
} from '../measures.js';
import type { MiningTable } from '../mining-table.js';
import { trendEndPeriods } from './time-series.js';
import type { MiningQueryRunner } from '../query-runner.js';

/** Groups read per grouping, largest first: the rest of an entity's values are pooled into the total. */
export const MAX_GROUPS_READ = 40;
/** A share is worth a finding from this lift over an even split. */
const MIN_SHARE_LIFT = 1.5;
/** … and this share of the rows. */
const MIN_SHARE = 0.1;
/** … or this lift, whatever the share, for a grouping of many values. */
const MANY_VALUES_LIFT = 5;
/** A measure's total is concentrated when a group holds this much more of it than of the rows. */
const MIN_SUM_SHARE_LIFT = 1.5;
const MIN_SUM_SHARE = 0.25;

interface Group {
  value: ClaimScalar;
  n: number;
  figures: MeasureFigures[];
}

function num(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

/**
 * The grouped statement: the largest MAX_GROUPS_READ groups, and — when the grouping may have more
 * values than that (`withTotal`) — a second branch with the total over every row that has a value.
 * When every group is read the total is pooled from them instead (see pooledTotal): the branch is a
 * second pass over the table, about 40 % of the statement on MariaDB.
 */
export function segmentSql(
  syntax: SqlSyntax,
  table: MiningTable,
  grouping: Grouping,
  measures: readonly MeasureSpec[],
  withTotal = true,
): string {
  const from = table.from;
  const group = groupExpression(syntax, table, grouping);
  const aggregates = measures.flatMap((measure, index) => measureAggregates(syntax, table, measure, index));
  const select = (key: string) => [`${key} AS g`, 'count(*) AS n', ...aggregates].join(', ');
  const groups = `(SELECT 0 AS is_total, ${select(group)} FROM ${from} WHERE ${group} IS NOT NULL GROUP BY ${group} ORDER BY n DESC, g LIMIT ${MAX_GROUPS_READ})`;
  if (!withTotal) return groups;
  return [groups, 'UNION ALL', `(SELECT 1 AS is_total, ${select('NULL')} FROM ${from} WHERE ${group} IS NOT NULL)`].join('\n');
}

/** Every row with a value of the grouping. */
type Total = Pick<Group, 'n' | 'figures'>;

function readGroups(rows: readonly Row[], measures: readonly MeasureSpec[]): { groups: Group[]; total?: Total } {
  const groups: Group[] = [];
  let total: Total | undefined;
  for (const row of rows) {
    const figures = measures.map((measure, index) => readFigures(row, measure, index));
    const item: Group = { value: row.g as ClaimScalar, n: num(row.n), figures };
    if (num(row.is_total) === 1) total = item;
    else if (row.g !== null && row.g !== undefined) groups.push(item);
  }
  return total ? { groups, total } : { groups };
}

/** The total of every group, each measure's moments pooled (exact: counts, sums and sums of squares add up). */
export function pooledTotal(groups: readonly Group[], measures: readonly MeasureSpec[]): Total {
  const figures = measures.map((_, index) => {
    // groups with no value of the measure add nothing (and their NaN mean would spoil the sums)
    const each = groups.map((group) => group.figures[index] as MeasureFigures).filter((item) => item.n > 0);
    const empty: MeasureFigures = { n: 0, mean: Number.NaN, variance: 0, ...(measures[index]?.kind === 'rate' ? { k: 0 } : {}) };
    const [first, ...others] = each;
    const pooled = first === undefined ? empty : others.reduce(combine, first);
    const ranged = each.filter((item) => item.min !== undefined && item.max !== undefined);
    return ranged.length === 0
      ? pooled
      : {
          ...pooled,
          min: Math.min(...ranged.map((item) => item.min as number)),
          max: Math.max(...ranged.map((item) => item.max as number)),
        };
  });
  return { n: groups.reduce((sum, group) => sum + group.n, 0), figures };
}

/** Every group of the grouping is read and the total pooled from them; or the statement that also reads the total. */
async function groupsAndTotal(
  context: SegmentContext,
  grouping: Grouping,
  measures: readonly MeasureSpec[],
): Promise<{ groups: Group[]; total?: Total } | undefined> {
  const { syntax, runner, table } = context;
  const label = `segments ${table.qualified} by ${groupingKey(grouping)}`;
  if (grouping.distinct < MAX_GROUPS_READ) {
    const rows = await runner.run(label, segmentSql(syntax, table, grouping, measures, false));
    if (!rows) return undefined;
    const { groups } = readGroups(rows, measures);
    // fewer rows than the limit: every group was read (the profile's count may be an estimate, so check)
    if (rows.length < MAX_GROUPS_READ) return { groups, total: pooledTotal(groups, measures) };
  }
  const rows = await runner.run(label, segmentSql(syntax, table, grouping, measures));
  return rows ? readGroups(rows, measures) : undefined;
}

/** Figures of two disjoint sets of rows taken together. */
function combine(a: MeasureFigures, b: MeasureFigures): MeasureFigures {
  const n = a.n + b.n;
  if (n === 0) return { n: 0, mean: Number.NaN, variance: Number.NaN };
  const pooled = poolMoments([asMoments(a), asMoments(b)]);
  return { n, mean: pooled.mean, variance: pooled.variance, ...(a.k !== undefined && b.k !== undefined ? { k: a.k + b.k } : {}) };
}

function notNull(grouping: Grouping): ClaimCondition[] {
  return grouping.missing > 0 && !grouping.extracted ? [{ column: grouping.column, op: 'not_null' }] : [];
}

function gapTest(measure: MeasureSpec, group: MeasureFigures, rest: MeasureFigures): TestResult | undefined {
  if (measure.kind === 'rate') return twoProportionZ(group.k ?? 0, group.n, rest.k ?? 0, rest.n);
  return welchT(asMoments(group), asMoments(rest));
}

/** 0–1 strength of a gap: a rate's ratio and its distance in points; a mean's gap in standard deviations. */
function gapStrength(
  measure: MeasureSpec,
  group: MeasureFigures,
  rest: MeasureFigures,
  total: MeasureFigures,
): { strength: number; effect: Candidate['effect'] } {
  if (measure.kind === 'rate') {
    const ratio = rest.mean > 0 ? group.mean / rest.mean : group.mean > 0 ? 10 : 1;
    const points = Math.abs(group.mean - rest.mean);
    const logRatio = Math.abs(Math.log(Math.max(ratio, 1e-6)));
    return { strength: unit(logRatio / Math.log(3)) * Math.sqrt(unit(points / 0.15)), effect: { name: 'ratio', value: ratio } };
  }
  const sd = Math.sqrt(Math.max(total.variance, 1e-12));
  const standardized = (group.mean - rest.mean) / sd;
  const positive = group.mean > 0 && rest.mean > 0;
  // a heavy-tailed measure (delays, amounts) hides a large ratio behind a wide spread: count the ratio too
  const ratioStrength = positive ? 0.8 * unit(Math.abs(Math.log(group.mean / rest.mean)) / Math.log(3)) : 0;
  return {
    strength: Math.max(unit(Math.abs(standardized) / 1.2), ratioStrength),
    effect: positive ? { name: 'ratio', value: group.mean / rest.mean } : { name: 'standardized', value: standardized },
  };
}

/**
 * Groups that partition the measure's range — every group's values lie outside every other's (status
 * "hurricane" is wind ≥ 64 kt; "low birth weight" is weight < 2,500 g): the grouping is a binning of
 * the measure itself, and "hurricanes have stronger winds" says nothing. Needs two groups with values.
 */
export function isBinningOf(groups: ReadonlyArray<Pick<MeasureFigures, 'min' | 'max' | 'n'>>): boolean {
  const ranges = groups
    .filter((group) => group.n > 0 && group.min !== undefined && group.max !== undefined)
    .map((group) => [group.min as number, group.max as number] as const)
    .sort((left, right) => left[0] - right[0] || left[1] - right[1]);
  if (ranges.length < 2) return false;
  for (let i = 1; i < ranges.length; i++) if ((ranges[i]?.[0] as number) < (ranges[i - 1]?.[1] as number)) return false;
  return true;
}

/** A group this large is compared with the rest whether or not it is an extreme (the most common rating). */
const LARGE_GROUP_SHARE = 0.25;
/** A value held by this share of the rows makes the column nearly constant: its share is no finding. */
const NEAR_CONSTANT_SHARE = 0.95;

/** Windows of an ordered grouping: contiguous runs covering this share of the rows. */
const MIN_WINDOW_COVERAGE = 0.1;
const MAX_WINDOW_COVERAGE = 0.4;

export interface SegmentContext {
  syntax: SqlSyntax;
  runner: MiningQueryRunner;
  table: MiningTable;
  minSupport: number;
}

/** The group of a two-valued grouping a claim is about: its positive value, so Android-lower and iOS-higher are never both said. */
function binarySegmentValue(grouping: Grouping, groups: readonly Group[]): ClaimScalar | undefined {
  if (grouping.distinct !== 2 || groups.length !== 2) return undefined;
  const positive = grouping.source.positive;
  if (positive !== undefined) return positive;
  return [...groups].sort((left, right) => left.n - right.n)[0]?.value;
}

export async function mineSegments(context: SegmentContext, grouping: Grouping, measures: readonly MeasureSpec[]): Promise<FinderOutput> {
  const { table, minSupport } = context;
  const output = emptyOutput();
  const read = await groupsAndTotal(context, grouping, measures);
  if (!read) return output;
  const { groups, total } = read;
  if (!total || groups.length < 2) return output;
  const filters = notNull(grouping);
  const binaryValue = binarySegmentValue(grouping, groups);
  const test = (result: TestResult | undefined, columns: readonly string[]): number | undefined =>
    result ? recordTest(output, result.p_value, columns) : undefined;
  const subjectOf = (measure: MeasureSpec, value: ClaimScalar) => `${measure.label} by ${grouping.label} ${String(value)}`;

  measures.forEach((measure, index) => {
    const totalFigures = total.figures[index] as MeasureFigures;
    if (totalFigures.n < 2 * minSupport) return;
    const tested: Array<{ group: Group; figures: MeasureFigures; rest: MeasureFigures; result: TestResult; test: number }> = [];
    for (const group of groups) {
      const figures = group.figures[index] as MeasureFigures;
      if (figures.n < 2) continue;
      // a measure that is the grouping column itself says nothing ("attrition rate among attrition = Yes")
      if (measureColumns(measure).includes(grouping.column)) continue;
      const rest = restOf(totalFigures, figures);
      const result = gapTest(measure, figures, rest);
      const at = test(result, measureColumns(measure));
      if (result && at !== undefined) tested.push({ group, figures, rest, result, test: at });
    }
    const continuous = measure.kind !== 'rate';
    if (continuous && isBinningOf(groups.map((group) => group.figures[index] as MeasureFigures))) return;
    const supported = tested.filter((item) => item.figures.n >= minSupport && item.rest.n >= minSupport);
    const picks =
      binaryValue !== undefined
        ? supported.filter((item) => item.group.value === binaryValue)
        : [...supported]
            .sort((left, right) => right.figures.mean - left.figures.mean)
            // the highest and the lowest group, and any group that holds a large part of the rows
            .filter((item, at, all) => at === 0 || at === all.length - 1 || item.figures.n >= LARGE_GROUP_SHARE * totalFigures.n);
    for (const pick of picks) {
      const gap = pick.figures.mean - pick.rest.mean;
      if (gap === 0) continue;
      const { strength, effect } = gapStrength(measure, pick.figures, pick.rest, totalFigures);
      const metric = claimMetricOf(table, measure);
      const claim: Claim = {
        kind: 'difference',
        metric: { ...metric, filters: [...metric.filters, ...filters] },
        segment: segmentFor(grouping, pick.group.value),
        comparison: { kind: 'rest' },
        value: pick.figures.mean,
        comparison_value: pick.rest.mean,
        direction: gap > 0 ? 'higher' : 'lower',
        test: {
          name: pick.result.test,
          statistic: pick.result.statistic,
          p_value: pick.result.p_value,
          ...(pick.result.df ? { df: pick.result.df } : {}),
        },
        n: { segment: pick.figures.n, comparison: pick.rest.n },
        ...(table.sampleRows ? { approximate: true } : {}),
      };
      output.candidates.push({
        claim,
        effect,
        coverage: unit(pick.group.n / table.rows),
        strength,
        columns: [grouping.column, ...measureColumns(measure)],
        subject: subjectOf(measure, pick.group.value),
        test: pick.test,
      });
    }

    // a group's share of the measure's total, against its share of the rows
    if (measure.kind === 'mean' && measure.additive && totalFigures.mean > 0 && tested.length >= 2 && binaryValue === undefined) {
      const totalSum = totalFigures.mean * totalFigures.n;
      for (const item of tested) {
        const sumShare = (item.figures.mean * item.figures.n) / totalSum;
        const rowShare = item.figures.n / totalFigures.n;
        if (sumShare < MIN_SUM_SHARE || sumShare < MIN_SUM_SHARE_LIFT * rowShare || item.figures.n < minSupport) continue;
        if (item.result.statistic <= 0 || item.figures.mean < 0) continue;
        const metric = claimMetricOf(table, measure);
        output.candidates.push({
          claim: {
            kind: 'share',
            metric: { ...metric, kind: 'sum', filters: [...metric.filters, ...filters] },
            segment: segmentFor(grouping, item.group.value),
            comparison: { kind: 'rest' },
            value: sumShare,
            comparison_value: rowShare,
            direction: 'higher',
            test: {
              name: item.result.test,
              statistic: item.result.statistic,
              p_value: item.result.p_value,
              ...(item.result.df ? { df: item.result.df } : {}),
            },
            n: { segment: item.figures.n, comparison: item.rest.n },
            ...(table.sampleRows ? { approximate: true } : {}),
          },
          effect: { name: 'lift', value: sumShare / rowShare },
          coverage: unit(sumShare),
          strength: unit(sumShare / 0.6) * unit(Math.log(sumShare / rowShare) / Math.log(4)),
          columns: [grouping.column, measure.column],
          subject: `total ${measure.label} by ${grouping.label} ${String(item.group.value)}`,
          test: item.test,
        });
      }
    }

    // the run of neighbouring values of an ordered grouping (evening hours, summer months, the lowest levels) that differs most
    if (grouping.ordered && groups.length >= 5) {
      const ordered = groups
        .map((group) => ({ x: num(group.value), value: group.value, figures: group.figures[index] as MeasureFigures }))
        .filter((point) => Number.isFinite(point.x) && point.figures.n > 0)
        .sort((left, right) => left.x - right.x);
      type Window = { first: number; last: number; inside: MeasureFigures; result: TestResult };
      const best: { high?: Window; low?: Window } = {};
      let tries = 0;
      for (let first = 0; first < ordered.length; first++) {
        let inside: MeasureFigures | undefined;
        for (let last = first; last < ordered.length; last++) {
          const figures = (ordered[last] as (typeof ordered)[number]).figures;
          inside = inside ? combine(inside, figures) : figures;
          const coverage = inside.n / totalFigures.n;
          if (last === first) continue;
          if (coverage > MAX_WINDOW_COVERAGE) break;
          if (coverage < MIN_WINDOW_COVERAGE) continue;
          const rest = restOf(totalFigures, inside);
          const result = gapTest(measure, inside, rest);
          tries++;
          if (!result) continue;
          const side = result.statistic > 0 ? 'high' : 'low';
          const held = best[side];
          if (!held || Math.abs(result.statistic) > Math.abs(held.result.statistic)) best[side] = { first, last, inside, result };
        }
      }
      for (const window of [best.high, best.low]) {
        if (!window || tries === 0) continue;
        const chosen = window;
        // every window tried could have been the one reported: Bonferroni over them
        const result = { ...chosen.result, p_value: Math.min(1, chosen.result.p_value * tries) };
        const at = test(result, measureColumns(measure));
        const rest = restOf(totalFigures, chosen.inside);
        const from = (ordered[chosen.first] as (typeof ordered)[number]).x;
        const to = (ordered[chosen.last] as (typeof ordered)[number]).x;
        const gap = chosen.inside.mean - rest.mean;
        if (at !== undefined && gap !== 0 && chosen.inside.n >= minSupport) {
          const { strength, effect } = gapStrength(measure, chosen.inside, rest, totalFigures);
          const metric = claimMetricOf(table, measure);
          output.candidates.push({
            claim: {
              kind: 'difference',
              metric: { ...metric, filters: [...metric.filters, ...filters] },
              segment: rangeFor(grouping, from, to),
              comparison: { kind: 'rest' },
              value: chosen.inside.mean,
              comparison_value: rest.mean,
              direction: gap > 0 ? 'higher' : 'lower',
              test: { name: result.test, statistic: result.statistic, p_value: result.p_value, ...(result.df ? { df: result.df } : {}) },
              n: { segment: chosen.inside.n, comparison: rest.n },
              ...(table.sampleRows ? { approximate: true } : {}),
            },
            effect,
            coverage: unit(chosen.inside.n / table.rows),
            strength,
            columns: [grouping.column, ...measureColumns(measure)],
            subject: `${measure.label} by ${grouping.label} ${from} to ${to}`,
            test: at,
          });
        }
      }
    }

    // the measure along an ordered grouping: group means fitted against the order
    if (grouping.ordered && groups.length >= 4) {
      const points = groups
        .map((group) => ({ x: num(group.value), figures: group.figures[index] as MeasureFigures }))
        .filter((point) => Number.isFinite(point.x) && point.figures.n >= minSupport && Number.isFinite(point.figures.mean))
        .sort((left, right) => left.x - right.x);
      if (points.length >= 4) {
        const fit = linearFit(
          points.map((point) => point.x),
          points.map((point) => point.figures.mean),
        );
        const at = test(fit?.test, measureColumns(measure));
        const first = points[0];
        const last = points.at(-1);
        if (fit && at !== undefined && first && last) {
          const k = trendEndPeriods(points.length);
          const meanOf = (slice: typeof points) => slice.reduce((sum, point) => sum + point.figures.mean, 0) / slice.length;
          const start = meanOf(points.slice(0, k));
          const end = meanOf(points.slice(-k));
          const level = Math.max(Math.abs(totalFigures.mean), 1e-9);
          const change = (end - start) / level;
          const metric = claimMetricOf(table, measure);
          output.candidates.push({
            claim: {
              kind: 'trend',
              metric: { ...metric, filters: [...metric.filters, ...filters] },
              series: { column: grouping.column, label: grouping.label, ...(grouping.calendar ? { grain: grouping.calendar } : {}) },
              value: end,
              comparison_value: start,
              direction: fit.slope > 0 ? 'higher' : 'lower',
              test: { name: 'ols_slope', statistic: fit.test.statistic, p_value: fit.test.p_value, df: fit.test.df ?? points.length - 2 },
              n: { segment: points.length },
              fit: { slope: fit.slope, r2: fit.r2, periods: points.length, first_period: String(first.x), last_period: String(last.x) },
              ...(table.sampleRows ? { approximate: true } : {}),
            },
            effect: { name: 'relative_change', value: change },
            coverage: 1,
            strength: unit(Math.abs(change) / 0.8) * Math.sqrt(fit.r2),
            columns: [grouping.column, ...measureColumns(measure)],
            subject: `${measure.label} by ${grouping.label}`,
            test: at,
          });
        }
      }
    }
  });

  // the largest group against an even split of the rows (not for counts and levels, whose most common value is rarely news)
  const numericLevels = typeof groups[0]?.value === 'number' && grouping.calendar === undefined;
  if (binaryValue === undefined && !numericLevels) {
    const sorted = [...groups].sort((left, right) => right.n - left.n);
    const top = sorted[0];
    const k = Math.max(grouping.distinct, groups.length);
    const result = top && k >= 2 ? binomialTest(top.n, total.n, 1 / k) : undefined;
    const at = test(result, [grouping.column]);
    if (top && result && at !== undefined) {
      const share = top.n / total.n;
      const lift = share * k;
      // a modest share can still stand out among many values (the busiest of 200 airports)
      if (
        lift >= MIN_SHARE_LIFT &&
        (share >= MIN_SHARE || lift >= MANY_VALUES_LIFT) &&
        share < NEAR_CONSTANT_SHARE &&
        top.n >= minSupport
      ) {
        output.candidates.push({
          claim: {
            kind: 'share',
            metric: { kind: 'count', table: table.qualified, filters: notNull(grouping), label: table.noun },
            segment: segmentFor(grouping, top.value),
            comparison: { kind: 'even', groups: k },
            value: share,
            comparison_value: 1 / k,
            direction: 'higher',
            test: { name: 'binomial', statistic: result.statistic, p_value: result.p_value },
            n: { segment: top.n, comparison: total.n - top.n },
            ...(table.sampleRows ? { approximate: true } : {}),
          },
          effect: { name: 'lift', value: lift },
          coverage: unit(share),
          strength: unit(share / 0.5) * unit(Math.log(lift) / Math.log(3)),
          columns: [grouping.column],
          subject: `${table.noun} by ${grouping.label} ${String(top.value)}`,
          test: at,
        });
      }
    }
  }
  return output;
}
