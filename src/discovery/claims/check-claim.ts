/**
 * Checking one claim against a warehouse, from anyone: a run's insight, `assay verify`, or
 * `POST /api/v1/projects/:id/verify`. The verifier's own statement is built from the claim, run through
 * the guarded warehouse path, recounted, tested and judged; the outcome carries the recount, the test
 * and the SQL so a reader can redo it. Never asks a model.
 */
import type { Claim, ClaimCheck } from '../../domain/index.js';
import { CancelledError, UnsafeSqlError, WarehouseError, describeError } from '../../errors/index.js';
import type { TableSchema, Warehouse } from '../../warehouse/port.js';
import { sqlSyntaxFor } from '../../warehouse/sql-syntax/index.js';
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
  };
  return { status: verdict.status, reasoning: verdict.reasoning, sql: built.sql, recount, verdict, check };
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
