/**
 * Checking one claim against a warehouse, from anyone: a run's insight, `assay verify`, or
 * `POST /api/v1/projects/:id/verify`. The verifier's own statement is built from the claim, run through
 * the guarded warehouse path, recounted, tested and judged; the outcome carries the recount, the test
 * and the SQL so a reader can redo it. Never asks a model.
 */
import type { Claim, ClaimCheck } from '../../domain/index.js';
import { CancelledError, UnsafeSqlError, WarehouseError, describeError } from '../../errors/index.js';
import type { Row, TableSchema, Warehouse } from '../../warehouse/port.js';
import { sqlSyntaxFor } from '../../warehouse/sql-syntax/index.js';
import { type ChartOutcome, chartFromRows, chartFromSeries } from './claim-chart.js';
import { CHART_MAX_GROUPS, OUTLIER_ROWS_SHOWN, buildClaimChartSql } from './claim-chart-sql.js';
import { type ClaimRecount, recountFromRows } from './claim-recount.js';
import { buildClaimSql } from './claim-sql.js';
import { type ClaimVerdict, judgeClaim } from './claim-verdict.js';

export interface CheckClaimInput {
  warehouse: Warehouse;
  tables: readonly TableSchema[];
  claim: Claim;
  minSupport: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Times the statement (a phase records warehouse time). */
  timed?: <T>(work: () => Promise<T>) => Promise<T>;
  /**
   * Also compute the claim's chart (one more bounded statement for most kinds), stored on the check.
   * @defaultValue true — a run's insights are drawn from it; `assay verify` and the API ask for none.
   */
  chart?: boolean;
}

export type ClaimCheckOutcome =
  | { status: ClaimVerdict['status']; reasoning: string; sql: string; recount: ClaimRecount; verdict: ClaimVerdict; check: ClaimCheck }
  | { status: 'rejected' | 'error'; reasoning: string; sql: string; recount?: undefined; verdict?: undefined; check?: undefined };

/** Rows a series or statement may return to the verifier (periods of a long series included). */
const RECOUNT_MAX_ROWS = 5_000;

export async function checkClaim(input: CheckClaimInput): Promise<ClaimCheckOutcome> {
  const { claim } = input;
  const built = buildClaimSql(claim, input.tables, sqlSyntaxFor(input.warehouse.dialect));
  if (!built.ok) return { status: 'rejected', reasoning: `the claim cannot be recounted: ${built.reason}`, sql: '' };
  const run = () =>
    input.warehouse.query(built.sql, {
      maxRows: RECOUNT_MAX_ROWS,
      timeoutMs: input.timeoutMs,
      ...(input.signal ? { signal: input.signal } : {}),
    });
  let rows: Awaited<ReturnType<typeof run>>['rows'];
  try {
    rows = (await (input.timed ? input.timed(run) : run())).rows;
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    if (!(error instanceof WarehouseError || error instanceof UnsafeSqlError)) throw error;
    return { status: 'error', reasoning: `the recount query failed: ${describeError(error)}`, sql: built.sql };
  }
  const recount = recountFromRows(claim, built.shape, rows, input.minSupport);
  const verdict = judgeClaim(claim, recount, { minSupport: input.minSupport });
  const chart = input.chart === false ? undefined : await chartClaim(input, recount, rows);
  const check: ClaimCheck = {
    value: recount.value,
    comparison_value: recount.comparisonValue,
    direction_holds: verdict.directionHolds,
    relative_error: verdict.relativeError,
    comparison_relative_error: verdict.comparisonRelativeError,
    segment_rows: Math.max(0, Math.round(recount.segmentRows)),
    comparison_rows: Math.max(0, Math.round(recount.comparisonRows)),
    ...(recount.test
      ? {
          test: {
            name: recount.test.test,
            statistic: Number.isFinite(recount.test.statistic) ? recount.test.statistic : 0,
            p_value: recount.test.p_value,
            ...(recount.test.df ? { df: recount.test.df } : {}),
          },
        }
      : {}),
    ...(recount.fit ? { fit: recount.fit } : {}),
    ...(recount.changeTest
      ? {
          change_test: {
            name: recount.changeTest.test,
            statistic: Number.isFinite(recount.changeTest.statistic) ? recount.changeTest.statistic : 0,
            p_value: recount.changeTest.p_value,
            ...(recount.changeTest.df ? { df: recount.changeTest.df } : {}),
          },
        }
      : {}),
    ...(recount.shareOfTotal !== undefined ? { share_of_total: recount.shareOfTotal } : {}),
    sql: built.sql,
    ...(chart?.chart ? { chart: chart.chart } : {}),
    ...(chart?.unavailable ? { chart_unavailable: chart.unavailable.slice(0, 300) } : {}),
  };
  return { status: verdict.status, reasoning: verdict.reasoning, sql: built.sql, recount, verdict, check };
}

/**
 * The claim's chart: a trend's or a shift's recount rows as they are, every other kind through its own
 * bounded statement on the same guarded path. A chart that cannot be drawn says why; it never changes the
 * verdict, and a failed chart statement is reported as the chart's, not the claim's.
 */
async function chartClaim(input: CheckClaimInput, recount: ClaimRecount, recountRows: readonly Row[]): Promise<ChartOutcome> {
  const { claim } = input;
  const built = buildClaimChartSql(claim, input.tables, sqlSyntaxFor(input.warehouse.dialect));
  if (built === undefined) return chartFromSeries(claim, recountRows, input.minSupport);
  if (!built.ok) return { unavailable: `the claim cannot be charted: ${built.reason}` };
  const maxRows = built.shape === 'extremes' ? OUTLIER_ROWS_SHOWN : CHART_MAX_GROUPS;
  const run = () =>
    input.warehouse.query(built.sql, { maxRows, timeoutMs: input.timeoutMs, ...(input.signal ? { signal: input.signal } : {}) });
  try {
    const result = await (input.timed ? input.timed(run) : run());
    return chartFromRows(claim, built.shape, result.rows, { truncated: result.truncated, recount, minSupport: input.minSupport });
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    if (!(error instanceof WarehouseError || error instanceof UnsafeSqlError)) throw error;
    return { unavailable: `the chart query failed: ${describeError(error)}` };
  }
}

/** The claim restated with the recounted values (what an adjusted insight is re-rendered from). */
export function recountedClaim(claim: Claim, recount: ClaimRecount): Claim {
  return {
    ...claim,
    value: recount.value ?? claim.value,
    comparison_value: recount.comparisonValue ?? claim.comparison_value,
    ...(recount.test
      ? {
          test: {
            name: recount.test.test,
            statistic: Number.isFinite(recount.test.statistic) ? recount.test.statistic : 0,
            p_value: recount.test.p_value,
            ...(recount.test.df ? { df: recount.test.df } : {}),
          },
        }
      : {}),
    n: {
      segment: Math.round(recount.segmentRows),
      ...(recount.comparisonRows > 0 ? { comparison: Math.round(recount.comparisonRows) } : {}),
    },
    ...(recount.fit ? { fit: recount.fit } : {}),
    ...(claim.share_of_total !== undefined && recount.shareOfTotal !== null && recount.shareOfTotal !== undefined
      ? { share_of_total: Math.max(0, Math.min(1, recount.shareOfTotal)) }
      : {}),
  };
}
