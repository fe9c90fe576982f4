/**
 * Every statement mining runs goes through here: the guarded warehouse path (the same SQL guard and
 * read-only connection as agent SQL), a per-run budget of statements and of time, and a record of
 * what ran and what failed. A failed statement costs its finder, never the run.
 */
import { CancelledError, UnsafeSqlError, WarehouseError, describeError, isQueryTimeout } from '../../errors/index.js';
import type { Row, Warehouse } from '../../warehouse/port.js';

export interface MiningBudget {
  /** Statements per run. */
  maxQueries: number;
  /** Wall time of the whole mining stage. */
  maxDurationMs: number;
  /** Timeout of one statement. */
  queryTimeoutMs: number;
  /** Rows read back per statement. */
  maxRows: number;
}

export interface MiningQueryRecord {
  label: string;
  ms: number;
  rows: number;
  error?: string;
  /** The statement hit the statement timeout. */
  timedOut?: true;
}

export interface MiningQueryRunner {
  /** Rows of the statement, or undefined when it failed or the budget is spent (the reason is recorded). */
  run(label: string, sql: string): Promise<Row[] | undefined>;
  readonly records: readonly MiningQueryRecord[];
  /** Statements skipped because the budget ran out. */
  readonly skipped: number;
  remaining(): number;
}

export function createMiningQueryRunner(
  warehouse: Warehouse,
  budget: MiningBudget,
  options: { signal?: AbortSignal | undefined; now?: () => number } = {},
): MiningQueryRunner {
  const now = options.now ?? (() => Date.now());
  const started = now();
  const records: MiningQueryRecord[] = [];
  let skipped = 0;
  const remaining = () => (now() - started >= budget.maxDurationMs ? 0 : Math.max(0, budget.maxQueries - records.length));
  return {
    records,
    get skipped() {
      return skipped;
    },
    remaining,
    async run(label, sql) {
      if (options.signal?.aborted) throw new CancelledError('mining was cancelled');
      if (remaining() <= 0) {
        skipped++;
        return undefined;
      }
      const at = now();
      try {
        const result = await warehouse.query(sql, {
          maxRows: budget.maxRows,
          timeoutMs: budget.queryTimeoutMs,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        records.push({ label, ms: now() - at, rows: result.rowCount });
        return result.rows;
      } catch (error) {
        if (error instanceof CancelledError) throw error;
        if (!(error instanceof WarehouseError || error instanceof UnsafeSqlError)) throw error;
        records.push({ label, ms: now() - at, rows: 0, error: describeError(error), ...(isQueryTimeout(error) ? { timedOut: true } : {}) });
        return undefined;
      }
    },
  };
}
