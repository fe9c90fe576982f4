/**
 * Exploration reads a sample of a large table: the cost of a planned query follows the question (a
 * rate per device, a monthly series), not the table's size. A table of more than
 * EXPLORATION_SAMPLE_THRESHOLD rows (known from the catalog) is read, in the FROM item the query is
 * about, through a sample of about EXPLORATION_SAMPLE_ROWS rows: the dialect's block sample where the
 * analyst has one (DuckDB `USING SAMPLE … (system, 7)`, PostgreSQL `TABLESAMPLE SYSTEM … REPEATABLE`),
 * which reads only the sampled blocks, and the engine's row sample (`SqlSyntax.sampledTable`) on the
 * other engines and for queries that count rows per period (PERIODIC_KINDS). Smaller tables are read whole, so a demo warehouse gets exactly the answers it got
 * before. A sampled query says so in its purpose and thinking ("on a 2 % sample of 50,000,000 rows"):
 * its counts are the sample's, its rates and means estimates.
 *
 * Measured at 50M rows on 2 shared cores (docs/warehouses.md): the slowest exact exploration statement
 * (rows per customer, five million groups) took 82 s, the same on the block sample 1.5 s.
 */
import type { TableModel } from '../types.js';
import type { SqlDialect } from './dialect.js';

/** Rows a sampled exploration query reads, about. */
export const EXPLORATION_SAMPLE_ROWS = 1_000_000;
/** Tables above this many rows are explored through a sample; smaller ones are read whole (exact). */
export const EXPLORATION_SAMPLE_THRESHOLD = 2 * EXPLORATION_SAMPLE_ROWS;

/**
 * Query kinds read whole at any size: exact repeated rows pair up only when both copies are read, so a
 * sample would miss most of them (the planner runs them only on tables up to 5,000,000 rows).
 */
const EXACT_KINDS = new Set(['repeated']);

/**
 * Query kinds that count rows per period read a row sample even where a block sample exists: a block's
 * rows are neighbours in storage, mostly in time, so per period a block sample counts whole blocks (at
 * 50M rows, mining's weekly counts on one "slumped" by half where the table's did not).
 */
const PERIODIC_KINDS = new Set(['monthly', 'segment-trend', 'segment-spikes', 'segment-trends', 'weekly', 'retention']);

export interface ExplorationSample {
  /** The FROM item reading the sample, in place of the table. */
  from: string;
  /** Percentage of the table the sample reads. */
  percent: number;
  /** How a step says it: `on a 2 % sample of 50,000,000 rows`. */
  text: string;
}

/** A percentage as people write it: 3 significant digits at most, no trailing zeros. */
export function percentText(percent: number): string {
  return String(Number(percent.toPrecision(percent < 1 ? 2 : 3)));
}

/** Splits `schema.table` at its last dot (a bare name is in `main`). */
function refOf(qualified: string): { schema: string; name: string } {
  const dot = qualified.lastIndexOf('.');
  return dot < 0 ? { schema: 'main', name: qualified } : { schema: qualified.slice(0, dot), name: qualified.slice(dot + 1) };
}

/**
 * The sample exploration reads of `table`, or undefined when the table is read whole: at most
 * `threshold` rows (the row budget's trigger), or an unknown row count.
 */
export function explorationSample(
  dialect: SqlDialect,
  table: Pick<TableModel, 'qualified' | 'rows'>,
  budget: { rows: number; threshold: number } = { rows: EXPLORATION_SAMPLE_ROWS, threshold: EXPLORATION_SAMPLE_THRESHOLD },
  unit: 'block' | 'row' = 'block',
): ExplorationSample | undefined {
  if (!Number.isFinite(table.rows) || table.rows <= budget.threshold || table.rows <= budget.rows) return undefined;
  const percent = (100 * budget.rows) / table.rows;
  const shown = Number(percentText(percent));
  const from =
    dialect.blockSample && unit === 'block'
      ? `(SELECT * FROM ${dialect.blockSample(dialect.table(table.qualified), shown)})`
      : dialect.syntax.sampledTable(refOf(table.qualified), table.rows, budget.rows);
  return { from, percent: shown, text: `on a ${percentText(percent)} % sample of ${table.rows.toLocaleString('en-US')} rows` };
}

/** Escapes a literal for a regular expression. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The query with every `FROM <table> t` (the table a planned query is about, under the planner's alias
 * `t`) reading the sample instead. Joined tables, subqueries over other tables and other aliases are
 * left as they are: a related table's keys and times stay whole.
 */
export function readThroughSample(
  dialect: SqlDialect,
  sql: string,
  table: Pick<TableModel, 'qualified'>,
  sample: ExplorationSample,
): string {
  const pattern = new RegExp(`\\bFROM ${literal(dialect.table(table.qualified))} t(?=[\\s,)]|$)`, 'g');
  return sql.replace(pattern, () => `FROM ${sample.from} t`);
}

/** What a planned query reads: a sample of its table (with the text saying so), or the table whole. */
export function sampledDraft(
  dialect: SqlDialect,
  draft: { kind: string; table: TableModel; sql: string },
): { sql: string; sample?: ExplorationSample } {
  if (EXACT_KINDS.has(draft.kind)) return { sql: draft.sql };
  const sample = explorationSample(dialect, draft.table, undefined, PERIODIC_KINDS.has(draft.kind) ? 'row' : 'block');
  if (!sample) return { sql: draft.sql };
  const sql = readThroughSample(dialect, draft.sql, draft.table, sample);
  return sql === draft.sql ? { sql } : { sql, sample };
}
