/**
 * Record-level outliers: a few rows whose measure lies far outside the rest. One statement reads every
 * numeric measure's quartiles, smallest value, count and total; a second reads, per measure and side, the
 * rows beyond Tukey's far-out fence (three interquartile ranges past the quartiles, on the log scale for
 * a positive measure) — how many, their mean and total, the nearest of them — and the median of the
 * others. A side is a candidate only when few rows lie beyond it and the bulk's robust model expects
 * almost none there (`outlierTailTest`); a long tail of many rows is the shape of the data, not outliers.
 * At most two outlier findings per table survive ranking (`ranking.ts`).
 */
import type { Claim } from '../../../domain/index.js';
import type { Row } from '../../../warehouse/port.js';
import type { SqlSyntax } from '../../../warehouse/sql-syntax/index.js';
import { type OutlierSide, type Quartiles, farOutFences, outlierTailTest, robustZ, roundestBetween } from '../../statistics/outliers.js';
import { type FinderOutput, emptyOutput, recordTest, unit } from '../candidate.js';
import { type MeasureSpec, claimMetricOf, valueExpression } from '../measures.js';
import type { MiningTable } from '../mining-table.js';
import type { MiningQueryRunner } from '../query-runner.js';

/** Numeric measures read for outliers per table (the most relevant first, as the caller orders them). */
export const MAX_OUTLIER_MEASURES = 8;
/** Rows a table needs before its quartiles describe a bulk that outliers stand out from. */
const MIN_OUTLIER_TABLE_ROWS = 30;
/** "Few" rows beyond the fence: at most this many … */
const MAX_OUTLIER_ROWS = 50;
/** … and at most this share of the rows with a value. */
const MAX_OUTLIER_SHARE = 0.005;
/** Below this many rows, a handful beyond the fence is still "few" whatever their share. */
const FEW_ROWS = 5;
/** Robust z of the far-out fence for a normal bulk (0.6745 + 3 × 1.349): where strength starts. */
const FENCE_Z = 4.72;

export interface OutlierContext {
  syntax: SqlSyntax;
  runner: MiningQueryRunner;
  table: MiningTable;
  minSupport: number;
}

type Numeric = Extract<MeasureSpec, { kind: 'mean' }>;

function num(row: Row, key: string): number {
  const value = row[key];
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

/** The most rows beyond a fence that are still "a few" among `n`. */
export function fewRows(n: number): number {
  return Math.min(MAX_OUTLIER_ROWS, Math.max(FEW_ROWS, Math.floor(n * MAX_OUTLIER_SHARE)));
}

interface Read {
  measure: Numeric;
  quartiles: Quartiles;
  total: number;
  fences: { low: number; high: number };
}

/** The claim's threshold: the roundest number between the fence and the nearest row beyond it (the same rows either way). */
export function outlierThreshold(side: OutlierSide, fence: number, nearest: number): number {
  if (side === 'high') return roundestBetween(fence, nearest, 'up');
  // a low threshold is exclusive (rows below it): it must lie above the nearest extreme row
  const threshold = roundestBetween(nearest + Math.max(Math.abs(nearest), 1e-12) * 1e-9, fence, 'down');
  return threshold > nearest ? threshold : fence;
}

export async function mineOutliers(context: OutlierContext, measures: readonly MeasureSpec[]): Promise<FinderOutput> {
  const { syntax, runner, table, minSupport } = context;
  const output = emptyOutput();
  if (table.rows < MIN_OUTLIER_TABLE_ROWS) return output;
  const numeric = measures.filter((measure): measure is Numeric => measure.kind === 'mean').slice(0, MAX_OUTLIER_MEASURES);
  if (numeric.length === 0) return output;
  const spread = numeric.flatMap((measure, index) => {
    const value = valueExpression(syntax, table, measure);
    return [
      `${syntax.quantile(value, 0.25)} AS q1_${index}`,
      `${syntax.median(value)} AS q2_${index}`,
      `${syntax.quantile(value, 0.75)} AS q3_${index}`,
      `${syntax.toDouble(`min(${value})`)} AS lo_${index}`,
      `count(${value}) AS n_${index}`,
      `${syntax.toDouble(`sum(${value})`)} AS s_${index}`,
    ];
  });
  const spreadRow = (await runner.run(`outlier spread ${table.qualified}`, `SELECT ${spread.join(', ')} FROM ${table.from}`))?.[0];
  if (!spreadRow) return output;
  const reads: Read[] = [];
  numeric.forEach((measure, index) => {
    const quartiles: Quartiles = {
      q1: num(spreadRow, `q1_${index}`),
      median: num(spreadRow, `q2_${index}`),
      q3: num(spreadRow, `q3_${index}`),
      min: num(spreadRow, `lo_${index}`),
      n: num(spreadRow, `n_${index}`),
    };
    const fences = farOutFences(quartiles);
    if (!fences || !(quartiles.n >= MIN_OUTLIER_TABLE_ROWS)) return;
    reads.push({ measure, quartiles, total: num(spreadRow, `s_${index}`), fences });
  });
  if (reads.length === 0) return output;
  const beyond = reads.flatMap((read, index) => {
    const value = valueExpression(syntax, table, read.measure);
    const high = `${value} >= ${syntax.literal(read.fences.high)}`;
    const low = `${value} < ${syntax.literal(read.fences.low)}`;
    const sides: string[] = [];
    for (const [side, condition, nearest] of [
      ['h', high, 'min'],
      ['l', low, 'max'],
    ] as const)
      sides.push(
        `count(CASE WHEN ${condition} THEN 1 END) AS ${side}n_${index}`,
        `${syntax.toDouble(`avg(CASE WHEN ${condition} THEN ${value} END)`)} AS ${side}mean_${index}`,
        `${syntax.toDouble(`sum(CASE WHEN ${condition} THEN ${value} END)`)} AS ${side}sum_${index}`,
        `${syntax.toDouble(`${nearest}(CASE WHEN ${condition} THEN ${value} END)`)} AS ${side}near_${index}`,
        `${syntax.median(`CASE WHEN NOT (${condition}) THEN ${value} END`)} AS ${side}rest_${index}`,
      );
    return sides;
  });
  const row = (await runner.run(`outlier rows ${table.qualified}`, `SELECT ${beyond.join(', ')} FROM ${table.from}`))?.[0];
  if (!row) return output;
  reads.forEach((read, index) => {
    for (const side of ['high', 'low'] as const) {
      const key = side === 'high' ? 'h' : 'l';
      const count = num(row, `${key}n_${index}`);
      if (!(count >= 1)) continue;
      const nearest = num(row, `${key}near_${index}`);
      const mean = num(row, `${key}mean_${index}`);
      const restMedian = num(row, `${key}rest_${index}`);
      if (![nearest, mean, restMedian].every(Number.isFinite)) continue;
      const threshold = outlierThreshold(side, side === 'high' ? read.fences.high : read.fences.low, nearest);
      const test = outlierTailTest(read.quartiles, threshold, side, count);
      if (!test) continue;
      const columns = [read.measure.column];
      const at = recordTest(output, test.p_value, columns);
      // many rows past the fence are a long tail, not a few records that stand out
      if (count > fewRows(read.quartiles.n)) continue;
      // one extreme row may be a finding, but the bulk it stands out from needs the usual support
      if (read.quartiles.n - count < minSupport) continue;
      const sum = num(row, `${key}sum_${index}`);
      const additive = read.measure.additive && read.quartiles.min >= 0 && read.total > 0 && Number.isFinite(sum);
      const share = additive ? Math.max(0, Math.min(1, sum / read.total)) : undefined;
      const claim: Claim = {
        kind: 'outlier',
        metric: claimMetricOf(table, read.measure),
        segment: {
          column: read.measure.column,
          ...(side === 'high' ? { from: threshold } : { to: threshold }),
          label: read.measure.label,
        },
        comparison: { kind: 'rest' },
        value: mean,
        comparison_value: restMedian,
        ...(share !== undefined ? { share_of_total: share } : {}),
        direction: side === 'high' ? 'higher' : 'lower',
        test: { name: 'poisson_tail', statistic: test.statistic, p_value: test.p_value },
        n: { segment: count, comparison: read.quartiles.n - count },
        ...(table.sampleRows ? { approximate: true } : {}),
      } as Claim;
      // how far the extreme rows lie, in spreads of the bulk past the fence; what they weigh in the total
      const z = Math.abs(robustZ(read.quartiles, mean));
      const strength = unit(0.25 + (z - FENCE_Z) / 6 + (share ?? 0));
      output.candidates.push({
        claim,
        effect: { name: 'robust_z', value: Number.isFinite(z) ? z : 0 },
        coverage: unit(Math.max(count / read.quartiles.n, share ?? 0)),
        strength,
        columns,
        subject: `${read.measure.label} outliers`,
        test: at,
      });
    }
  });
  return output;
}
