/**
 * Queries for the patterns real tables show, whatever they record: how rows pile up on a few values
 * of a column (entities: owners, managers, users), how the mix of one column differs inside the
 * values of another, monthly counts and durations per segment (spikes, step changes, trends), the
 * terms of a free-text column that dominate one segment, measures across brackets of a metric,
 * correlations between measures, and rows repeated on every descriptive column.
 *
 * Every query returns at most SEGMENT_ROWS_MAX rows, already summarised, and names its columns by
 * the convention the analysis reads back (first column = segment, integer columns = counts,
 * `*_rate` / `share_*` fractions, `avg_*` means, `median_*` typical values, `corr_*` correlations).
 */
import { spreadAlias, type Measure } from '../planner/measures.js';
import type { Segment } from '../planner/segments.js';
import type { ColumnModel, TableModel } from '../types.js';
import { alias, type SqlDialect } from './dialect.js';
import { SEGMENT_ROWS_MAX, countAlias } from './segment-query.js';
import type { TimeSource } from './trend-queries.js';

/** A month whose count is this many robust deviations above the segment's median month stands out (Iglewicz–Hoaglin). */
export const SPIKE_ROBUST_Z = 3.5;
/** Scales the median absolute deviation to a standard deviation for normal data. */
const MAD_SCALE = 1.4826;
/** Terms shorter than this are grammar, not subject matter. */
export const MIN_TERM_LENGTH = 3;
/** A term must appear in this many rows of a segment before its share is compared. */
export const MIN_TERM_ROWS = 5;
/** Brackets a metric is cut into (quartiles: the edges come from the data). */
export const METRIC_BRACKETS = 4;

function joinsOf(...parts: Array<string | undefined>): string {
  const unique = [...new Set(parts.filter((part): part is string => typeof part === 'string' && part !== ''))];
  return unique.length > 0 ? `\n${unique.join('\n')}` : '';
}

/** Alias of the typical (median) count per value of a segment. */
export function medianCountAlias(table: TableModel, segment: Segment): string {
  return alias('median', countAlias(table), 'per', segment.alias);
}

/** Alias of the number of distinct values a segment has (all of them, not only the rows shown). */
export function distinctAlias(segment: Segment): string {
  return alias('distinct', segment.alias);
}

/**
 * Rows per value of a column with many values (owners, managers, users), the busiest first, next to
 * the median count over every value and how many values there are: one value far above the median
 * carries a disproportionate share.
 */
export function entityCountQuery(dialect: SqlDialect, table: TableModel, segment: Segment, measures: readonly Measure[]): string {
  const count = dialect.identifier(countAlias(table));
  const select = [
    `${segment.expression} AS ${dialect.identifier(segment.alias)}`,
    `COUNT(*) AS ${count}`,
    ...measures.map((measure) => `${measure.sql} AS ${dialect.identifier(measure.alias)}`),
    // spreads of the durations, so a gap between one value's mean and the others' is tested, not guessed
    ...measures
      .filter((measure) => measure.duration !== undefined && measure.spreadSql !== undefined)
      .slice(0, 2)
      .map((measure) => `${measure.spreadSql} AS ${dialect.identifier(spreadAlias(measure.alias))}`),
    `COUNT(*) * 1.0 / SUM(COUNT(*)) OVER () AS ${dialect.identifier(alias('share_of', table.name))}`,
  ];
  return [
    'WITH per_value AS (',
    `  SELECT ${select.join(',\n         ')}`,
    `  FROM ${dialect.table(table.qualified)} t${segment.join ? `\n  ${segment.join}` : ''}`,
    '  GROUP BY 1',
    ')',
    `SELECT *, (SELECT ${dialect.syntax.median(count)} FROM per_value) AS ${dialect.identifier(medianCountAlias(table, segment))},`,
    `       (SELECT COUNT(*) FROM per_value) AS ${dialect.identifier(distinctAlias(segment))}`,
    'FROM per_value',
    `ORDER BY ${count} DESC, 1`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}

/** Column names of the multi-column summaries: which column a row's value belongs to, and the value. */
export const DIMENSION_COLUMN = 'dimension';
export const VALUE_COLUMN = 'value';

/** A column's name as a SQL string: the label of the rows a multi-column summary gives it. */
function columnLabel(dialect: SqlDialect, segment: Segment): string {
  return dialect.syntax.string(segment.column.name);
}

/** Column names of the per-value monthly summaries, shared by the queries and the analysis. */
export const MONTHLY_SUMMARY = {
  medianMonthly: 'median_monthly_rows',
  spikeMonths: 'spike_months',
  spikeFirst: 'spike_first_month',
  spikeLast: 'spike_last_month',
  spikeRows: 'spike_rows',
  edgeMonths: 'edge_months',
  firstMonthly: 'first_months_rows',
  lastMonthly: 'last_months_rows',
} as const;

/**
 * The continuous median of `value` over a value's months, as a window: the average of the one or two
 * middle rows by `rank` (1-based, ordered by `value`), which is what a median aggregate returns.
 */
function middleAverage(value: string, rank: string): string {
  return `AVG(CASE WHEN ${rank} IN (FLOOR((months + 1) / 2.0), CEIL((months + 1) / 2.0)) THEN ${value} END) OVER (PARTITION BY dimension, segment_value)`;
}

/** Values listed by the spike summary at most: only values with a spike are listed. */
const SPIKE_ROWS_MAX = 10;

/**
 * The shared part of the per-value monthly summaries: per column and value, the monthly series on a
 * calendar of every month the table has (months without rows count as zero, so gaps never break the
 * series), each month's index, the series length, its median month, and whether the month spikes —
 * more rows than the median by SPIKE_ROBUST_Z scaled median absolute deviations (at least one row).
 */
function monthlyBase(dialect: SqlDialect, table: TableModel, segments: readonly Segment[], time: TimeSource, measure?: Measure): string[] {
  const value = measure ? `, ${measure.sql} AS d` : '';
  const branches = segments.map((segment) =>
    [
      `  SELECT ${columnLabel(dialect, segment)} AS dimension, ${segment.expression} AS segment_value, ${dialect.syntax.truncate(time.expression, 'month')} AS month, COUNT(*) AS n${value}`,
      `  FROM ${dialect.table(table.qualified)} t${joinsOf(time.join, segment.join, measure?.join)}`,
      `  WHERE ${time.expression} IS NOT NULL`,
      '  GROUP BY 1, 2, 3',
    ].join('\n'),
  );
  return [
    'WITH monthly AS (',
    branches.join('\n  UNION ALL\n'),
    '), calendar AS (',
    '  SELECT DISTINCT month FROM monthly',
    '), grid AS (',
    `  SELECT s.dimension, s.segment_value, c.month, ${dialect.syntax.monthText('c.month')} AS label, COALESCE(m.n, 0) AS n${measure ? ', m.d' : ''}`,
    '  FROM (SELECT DISTINCT dimension, segment_value FROM monthly) s',
    '  CROSS JOIN calendar c',
    '  LEFT JOIN monthly m ON m.dimension = s.dimension AND m.segment_value = s.segment_value AND m.month = c.month',
    // a chain in which every step reads the one before once: MariaDB evaluates a CTE again for each
    // reference, and the medians as joined GROUP BYs read the whole chain four times (a 30 s timeout
    // on the demo); the medians here are window averages over the middle ranks, the same values
    '), indexed AS (',
    '  SELECT *, ROW_NUMBER() OVER (PARTITION BY dimension, segment_value ORDER BY month) AS month_index,',
    '         COUNT(*) OVER (PARTITION BY dimension, segment_value) AS months,',
    '         ROW_NUMBER() OVER (PARTITION BY dimension, segment_value ORDER BY n) AS n_rank',
    '  FROM grid',
    '), typical AS (',
    `  SELECT *, ${middleAverage('n', 'n_rank')} AS median_n FROM indexed`,
    '), deviations AS (',
    '  SELECT *, ROW_NUMBER() OVER (PARTITION BY dimension, segment_value ORDER BY ABS(n - median_n)) AS deviation_rank FROM typical',
    '), spread AS (',
    `  SELECT *, ${middleAverage('ABS(n - median_n)', 'deviation_rank')} AS mad_n FROM deviations`,
    '), marked AS (',
    '  SELECT *, GREATEST(2, FLOOR(months / 4.0)) AS edge,',
    `         CASE WHEN n > median_n AND (n - median_n) > ${SPIKE_ROBUST_Z} * ${MAD_SCALE} * GREATEST(mad_n, 1) THEN 1 ELSE 0 END AS spike`,
    '  FROM spread',
    ')',
  ];
}

/**
 * Months far above a value's own median month, for the values of one or more columns that have any:
 * the window's first and last month, its months and rows against the median month, and, with a
 * duration or average, its mean inside the window and in the value's other months. Biggest spikes
 * first; values without a spike are left out.
 */
export function segmentSpikeQuery(
  dialect: SqlDialect,
  table: TableModel,
  segments: readonly Segment[],
  time: TimeSource,
  measure?: Measure,
): string {
  const count = dialect.identifier(countAlias(table));
  const m = MONTHLY_SUMMARY;
  const select = [
    `dimension AS ${DIMENSION_COLUMN}`,
    `segment_value AS ${dialect.identifier(VALUE_COLUMN)}`,
    `SUM(n) AS ${count}`,
    `MAX(median_n) AS ${m.medianMonthly}`,
    `SUM(spike) AS ${m.spikeMonths}`,
    `MIN(CASE WHEN spike = 1 THEN label END) AS ${m.spikeFirst}`,
    `MAX(CASE WHEN spike = 1 THEN label END) AS ${m.spikeLast}`,
    `SUM(CASE WHEN spike = 1 THEN n END) AS ${m.spikeRows}`,
  ];
  if (measure) {
    select.push(
      `${dialect.round('SUM(CASE WHEN spike = 1 THEN d * n END) / NULLIF(SUM(CASE WHEN spike = 1 AND d IS NOT NULL THEN n END), 0)', 3)} AS ${dialect.identifier(alias('spike_months', measure.alias))}`,
      `${dialect.round('SUM(CASE WHEN spike = 0 THEN d * n END) / NULLIF(SUM(CASE WHEN spike = 0 AND d IS NOT NULL THEN n END), 0)', 3)} AS ${dialect.identifier(alias('other_months', measure.alias))}`,
    );
  }
  return [
    ...monthlyBase(dialect, table, segments, time, measure),
    `SELECT ${select.join(',\n       ')}`,
    'FROM marked',
    'GROUP BY 1, 2',
    'HAVING SUM(spike) > 0',
    `ORDER BY SUM(CASE WHEN spike = 1 THEN n END) * 1.0 / SUM(spike) / GREATEST(MAX(median_n), 1) DESC, 1, 2`,
    `LIMIT ${SPIKE_ROWS_MAX}`,
  ].join('\n');
}

/**
 * For the values of one or more columns: rows per month in the first and the last months of the
 * series (a quarter of it, at least two months each), and, with a duration or average, its mean over
 * the same months and its monthly slope — a value that grows while the others stay level stands out.
 */
export function segmentTrendSummaryQuery(
  dialect: SqlDialect,
  table: TableModel,
  segments: readonly Segment[],
  time: TimeSource,
  measure?: Measure,
): string {
  const count = dialect.identifier(countAlias(table));
  const m = MONTHLY_SUMMARY;
  const select = [
    `dimension AS ${DIMENSION_COLUMN}`,
    `segment_value AS ${dialect.identifier(VALUE_COLUMN)}`,
    `SUM(n) AS ${count}`,
    `MAX(edge) AS ${m.edgeMonths}`,
    `${dialect.round('AVG(CASE WHEN month_index <= edge THEN n * 1.0 END)', 2)} AS ${m.firstMonthly}`,
    `${dialect.round('AVG(CASE WHEN month_index > months - edge THEN n * 1.0 END)', 2)} AS ${m.lastMonthly}`,
  ];
  if (measure) {
    const named = measure.alias;
    select.push(
      `${dialect.round('SUM(CASE WHEN month_index <= edge THEN d * n END) / NULLIF(SUM(CASE WHEN month_index <= edge AND d IS NOT NULL THEN n END), 0)', 3)} AS ${dialect.identifier(alias('first_months', named))}`,
      `${dialect.round('SUM(CASE WHEN month_index > months - edge THEN d * n END) / NULLIF(SUM(CASE WHEN month_index > months - edge AND d IS NOT NULL THEN n END), 0)', 3)} AS ${dialect.identifier(alias('last_months', named))}`,
      `${dialect.round(dialect.syntax.slope('d', 'month_index'), 3)} AS ${dialect.identifier(alias('monthly_change', named))}`,
    );
  }
  return [
    ...monthlyBase(dialect, table, segments, time, measure),
    `SELECT ${select.join(',\n       ')}`,
    'FROM marked',
    'GROUP BY 1, 2',
    `ORDER BY 1, ${count} DESC, 2`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}

/** Column names of a mix query. */
export const MIX = {
  outerColumn: 'outer_column',
  outerValue: 'outer_value',
  innerColumn: 'inner_column',
  innerValue: 'inner_value',
} as const;

/**
 * How the values of columns are spread within the values of other columns, for every pair of the
 * given columns at once: per pair of values, its rows, each value's rows, and both readings of the
 * mix (the share of the outer value's rows that have the inner value, and the reverse) next to the
 * same share elsewhere; the pairs furthest above what independence predicts first (standardised
 * residual).
 */
export function mixQuery(dialect: SqlDialect, table: TableModel, segments: readonly Segment[]): string {
  const count = countAlias(table);
  const branches: string[] = [];
  for (const [index, outer] of segments.entries()) {
    for (const inner of segments.slice(index + 1)) {
      branches.push(
        [
          `  SELECT ${columnLabel(dialect, outer)} AS outer_column, ${outer.expression} AS outer_value, ${columnLabel(dialect, inner)} AS inner_column, ${inner.expression} AS inner_value, COUNT(*) AS n`,
          `  FROM ${dialect.table(table.qualified)} t${joinsOf(outer.join, inner.join)}`,
          '  GROUP BY 1, 2, 3, 4',
        ].join('\n'),
      );
    }
  }
  return [
    'WITH cells AS (',
    branches.join('\n  UNION ALL\n'),
    '), totals AS (',
    '  SELECT *, SUM(n) OVER (PARTITION BY outer_column, inner_column, outer_value) AS outer_n,',
    '         SUM(n) OVER (PARTITION BY outer_column, inner_column, inner_value) AS inner_n,',
    '         SUM(n) OVER (PARTITION BY outer_column, inner_column) AS all_n',
    '  FROM cells',
    '), ranked AS (',
    '  SELECT *, (n - outer_n * inner_n * 1.0 / all_n) / SQRT(outer_n * inner_n * 1.0 / all_n) AS residual,',
    '         ROW_NUMBER() OVER (PARTITION BY outer_column, inner_column ORDER BY (n - outer_n * inner_n * 1.0 / all_n) / SQRT(outer_n * inner_n * 1.0 / all_n) DESC, outer_value, inner_value) AS pair_rank',
    '  FROM totals',
    '  WHERE outer_n < all_n AND inner_n < all_n',
    ')',
    `SELECT outer_column AS ${MIX.outerColumn}, outer_value AS ${MIX.outerValue}, inner_column AS ${MIX.innerColumn}, inner_value AS ${MIX.innerValue},`,
    `       n AS ${dialect.identifier(count)},`,
    `       outer_n AS ${dialect.identifier(alias('outer', count))},`,
    `       inner_n AS ${dialect.identifier(alias('inner', count))},`,
    `       all_n AS ${dialect.identifier(alias('all', count))},`,
    '       n * 1.0 / outer_n AS share_in_outer,',
    '       (inner_n - n) * 1.0 / NULLIF(all_n - outer_n, 0) AS share_in_outer_elsewhere,',
    '       n * 1.0 / inner_n AS share_in_inner,',
    '       (outer_n - n) * 1.0 / NULLIF(all_n - inner_n, 0) AS share_in_inner_elsewhere',
    'FROM ranked',
    `WHERE pair_rank <= ${Math.max(1, Math.floor(SEGMENT_ROWS_MAX / Math.max(1, branches.length)))}`,
    'ORDER BY residual DESC, 1, 2, 3, 4',
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}

/** Column names of a terms query. */
export const TERMS = {
  term: 'term',
  share: 'term_share',
  elsewhere: 'term_share_elsewhere',
} as const;

/** Alias of the rows of a segment that mention a term. */
export function termCountAlias(table: TableModel): string {
  return alias(countAlias(table), 'with_term');
}

/**
 * The words of a free-text column that set one value of a column apart, for several columns at once:
 * per column, value and term (three letters or more), the value's rows mentioning it, its share of
 * the value's rows and its share of the other rows, the terms most over-represented first. Words
 * every value uses rank low by themselves. Undefined on an engine whose syntax has no word splitter.
 */
export function termsQuery(dialect: SqlDialect, table: TableModel, text: ColumnModel, segments: readonly Segment[]): string | undefined {
  const split = dialect.syntax.wordRows('body');
  // MySQL/MariaDB, BigQuery and Snowflake have no splitter in a SELECT list: no terms query there
  if (split === undefined) return undefined;
  const count = dialect.identifier(countAlias(table));
  const withTerm = dialect.identifier(termCountAlias(table));
  const joins = joinsOf(...segments.map((segment) => segment.join));
  const labelled = segments
    .map(
      (segment) =>
        `  SELECT t.analyst_row_id AS row_id, ${columnLabel(dialect, segment)} AS dimension, ${segment.expression} AS segment_value, t.analyst_text AS body FROM numbered t`,
    )
    .join('\n  UNION ALL\n');
  return [
    'WITH numbered AS (',
    `  SELECT ROW_NUMBER() OVER () AS analyst_row_id, ${dialect.column('t', text.name)} AS analyst_text, t.*`,
    `  FROM ${dialect.table(table.qualified)} t${joins.replace(/\n/g, '\n  ')}`,
    '), source_rows AS (',
    labelled,
    '), words AS (',
    `  SELECT DISTINCT row_id, dimension, segment_value, term FROM (SELECT row_id, dimension, segment_value, ${split} AS term FROM source_rows WHERE body IS NOT NULL) split`,
    `  WHERE LENGTH(term) >= ${MIN_TERM_LENGTH}`,
    '), segment_rows AS (',
    '  SELECT dimension, segment_value, COUNT(*) AS segment_n FROM source_rows GROUP BY 1, 2',
    '), terms AS (',
    '  SELECT dimension, segment_value, term, COUNT(*) AS n FROM words GROUP BY 1, 2, 3',
    '), term_rows AS (',
    '  SELECT dimension, term, SUM(n) AS term_n FROM terms GROUP BY 1, 2',
    '), everything AS (',
    '  SELECT COUNT(*) AS all_n FROM numbered',
    '), scored AS (',
    '  SELECT x.*, s.segment_n, r.term_n, e.all_n,',
    '         (x.n * 1.0 / s.segment_n - COALESCE((r.term_n - x.n) * 1.0 / NULLIF(e.all_n - s.segment_n, 0), 0)) * SQRT(x.n) AS score',
    '  FROM terms x',
    '  JOIN segment_rows s ON s.dimension = x.dimension AND s.segment_value = x.segment_value',
    '  JOIN term_rows r ON r.dimension = x.dimension AND r.term = x.term',
    '  CROSS JOIN everything e',
    `  WHERE x.n >= ${MIN_TERM_ROWS} AND s.segment_n < e.all_n`,
    '), ranked AS (',
    '  SELECT *, ROW_NUMBER() OVER (PARTITION BY dimension ORDER BY score DESC, segment_value, term) AS dimension_rank FROM scored',
    ')',
    `SELECT x.dimension AS ${DIMENSION_COLUMN},`,
    `       x.segment_value AS ${dialect.identifier(VALUE_COLUMN)},`,
    `       x.term AS ${TERMS.term},`,
    `       x.n AS ${withTerm},`,
    `       x.segment_n AS ${count},`,
    `       x.n * 1.0 / x.segment_n AS ${TERMS.share},`,
    `       (x.term_n - x.n) * 1.0 / NULLIF(x.all_n - x.segment_n, 0) AS ${TERMS.elsewhere},`,
    `       x.all_n AS ${dialect.identifier(alias('all', countAlias(table)))}`,
    'FROM ranked x',
    `WHERE x.dimension_rank <= ${Math.max(1, Math.floor(SEGMENT_ROWS_MAX / Math.max(1, segments.length)))}`,
    'ORDER BY x.score DESC, 1, 2, 3',
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}

/** Alias of a bracket column: `amount_bracket`. */
export function bracketAlias(metric: ColumnModel): string {
  return alias(metric.name, 'bracket');
}

/**
 * A metric cut into quartiles (edges from the data): per bracket, its rows, lowest and highest value,
 * and the table's measures, so a measure that climbs or falls with the metric shows across brackets.
 * With `approximateEdges` (DuckDB tables past the profile's sample size) the edges are approximate
 * quantiles read in one bounded-memory pass, instead of NTILE's sort of every row with all its columns;
 * each bracket's rows, range and measures are still counted exactly.
 */
export function bracketQuery(
  dialect: SqlDialect,
  table: TableModel,
  metric: ColumnModel,
  measures: readonly Measure[],
  approximateEdges = false,
): string {
  const count = dialect.identifier(countAlias(table));
  const value = dialect.syntax.toDouble(dialect.column('t', metric.name));
  const select = [
    `t.bracket_number AS ${dialect.identifier(bracketAlias(metric))}`,
    `COUNT(*) AS ${count}`,
    `MIN(${value}) AS ${dialect.identifier(alias('min', metric.name))}`,
    `MAX(${value}) AS ${dialect.identifier(alias('max', metric.name))}`,
    ...measures.map((measure) => `${measure.sql} AS ${dialect.identifier(measure.alias)}`),
  ];
  const edges = Array.from({ length: METRIC_BRACKETS - 1 }, (_, index) => (index + 1) / METRIC_BRACKETS);
  // approximate edges are DuckDB's (approx_quantile over a list): the planner asks for them only there
  const bracketed = approximateEdges
    ? [
        'WITH edges AS (',
        `  SELECT approx_quantile(${value}, [${edges.join(', ')}]) AS edge FROM ${dialect.table(table.qualified)} t`,
        '), bracketed AS (',
        `  SELECT t.*, CAST(CASE ${edges.map((_, index) => `WHEN ${value} <= e.edge[${index + 1}] THEN ${index + 1}`).join(' ')} ELSE ${METRIC_BRACKETS} END AS BIGINT) AS bracket_number`,
        `  FROM ${dialect.table(table.qualified)} t, edges e`,
        `  WHERE ${dialect.column('t', metric.name)} IS NOT NULL`,
        ')',
      ]
    : [
        'WITH bracketed AS (',
        `  SELECT t.*, NTILE(${METRIC_BRACKETS}) OVER (ORDER BY ${value}) AS bracket_number`,
        `  FROM ${dialect.table(table.qualified)} t`,
        `  WHERE ${dialect.column('t', metric.name)} IS NOT NULL`,
        ')',
      ];
  return [...bracketed, `SELECT ${select.join(',\n       ')}`, 'FROM bracketed t', 'GROUP BY 1', 'ORDER BY 1'].join('\n');
}

/** Two numeric expressions whose correlation is measured, and what to call it. */
export interface CorrelationPair {
  alias: string;
  x: string;
  y: string;
}

/** The label of the row that measures every row together in a correlation query. */
export const ALL_ROWS_LABEL = '(all rows)';

/**
 * Pearson correlations between pairs of measures, over every row and per value of one or more
 * columns (a relationship can hold in one group and not in the others), with the rows behind each.
 */
export function correlationQuery(
  dialect: SqlDialect,
  table: TableModel,
  segments: readonly Segment[],
  pairs: readonly CorrelationPair[],
): string {
  const count = dialect.identifier(countAlias(table));
  const measures = pairs.map((pair) => `${dialect.syntax.correlation(pair.y, pair.x)} AS ${dialect.identifier(pair.alias)}`);
  const from = `FROM ${dialect.table(table.qualified)} t`;
  const branches = [
    `SELECT ${dialect.syntax.toText(dialect.syntax.string(ALL_ROWS_LABEL))} AS ${DIMENSION_COLUMN}, ${dialect.syntax.toText(dialect.syntax.string(ALL_ROWS_LABEL))} AS ${dialect.identifier(VALUE_COLUMN)}, COUNT(*) AS ${count}, ${measures.join(', ')}\n${from}`,
    ...segments.map(
      (segment) =>
        `SELECT ${dialect.syntax.toText(columnLabel(dialect, segment))}, ${dialect.syntax.toText(segment.expression)}, COUNT(*), ${pairs.map((pair) => dialect.syntax.correlation(pair.y, pair.x)).join(', ')}\n${from}${segment.join ? `\n${segment.join}` : ''}\nGROUP BY 1, 2`,
    ),
  ];
  return [branches.join('\nUNION ALL\n'), 'ORDER BY 3 DESC, 1, 2', `LIMIT ${SEGMENT_ROWS_MAX}`].join('\n');
}

/** Alias of the rows that repeat another row on every descriptive column. */
export function repeatedAlias(table: TableModel): string {
  return alias('repeated', countAlias(table));
}

/**
 * Rows identical to another row on every descriptive column (the segment, the measured values and
 * the dimensions, outcomes and free text aside), per value of a segment: how many rows repeat, the
 * share, and the total over every value. Exact repeats of measured values rarely happen by chance.
 * Identical rows are counted by grouping on those columns (a hash aggregate that spills past the
 * memory limit), not by a window over every row.
 */
export function repeatedRowsQuery(dialect: SqlDialect, table: TableModel, segment: Segment, identity: readonly ColumnModel[]): string {
  const count = dialect.identifier(countAlias(table));
  const repeated = dialect.identifier(repeatedAlias(table));
  const partition = [segment.expression, ...identity.map((candidate) => dialect.column('t', candidate.name))].join(', ');
  const repeatedCopies = 'SUM(CASE WHEN copies >= 2 THEN copies ELSE 0 END)';
  // DuckDB sums BIGINT counts into HUGEINT: back to BIGINT where the engine has that type name
  const asCount = (expression: string) =>
    dialect.name === 'duckdb' || dialect.name === 'postgres' ? `CAST(${expression} AS BIGINT)` : expression;
  return [
    'WITH copies AS (',
    `  SELECT ${segment.expression} AS segment_value, COUNT(*) AS copies`,
    `  FROM ${dialect.table(table.qualified)} t${segment.join ? `\n  ${segment.join}` : ''}`,
    `  GROUP BY ${partition}`,
    ')',
    `SELECT segment_value AS ${dialect.identifier(segment.alias)},`,
    `       ${asCount('SUM(copies)')} AS ${count},`,
    `       ${asCount(repeatedCopies)} AS ${repeated},`,
    `       ${dialect.syntax.toDouble(repeatedCopies)} / SUM(copies) AS ${dialect.identifier(alias('share', repeatedAlias(table)))},`,
    `       ${asCount(`SUM(${repeatedCopies}) OVER ()`)} AS ${dialect.identifier(alias('all', repeatedAlias(table)))},`,
    `       ${asCount('SUM(SUM(copies)) OVER ()')} AS ${dialect.identifier(alias('all', countAlias(table)))}`,
    'FROM copies',
    'GROUP BY 1',
    `ORDER BY 3 DESC, 2 DESC, 1`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}
