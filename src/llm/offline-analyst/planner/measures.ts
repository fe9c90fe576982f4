/**
 * What can be measured on a table's rows: flag rates, milestone rates (a nullable time that is set),
 * status shares, metric averages and totals, and days to a milestone. Column aliases follow one
 * convention the analysis reads back: `*_rate` is a fraction, `avg_*` an average, `total_*` a sum,
 * `share_of_*` a fraction of the column's total.
 */
import { alias, rateOf, type SqlDialect } from '../sql/dialect.js';
import { mainTime, milestoneName, milestoneTimes, type Reference } from '../schema-model.js';
import { wordsOf } from '../text.js';
import type { TableModel } from '../types.js';

/** Amount-like metric names: summed as revenue/spend, shared across segments. */
export const MONEY_NAME = /(amount|revenue|price|spend|total|value|cost|sales|paid|usd|eur|gbp|gmv|fee|income|profit|margin)/i;
/** Columns whose values are a row's outcome; each value's share is a rate. */
const STATUS_NAME = /(status|state|outcome|result|stage)$/i;
/** Words that make a high rate bad news. */
export const NEGATIVE_WORDS =
  /(refund|return|cancel|churn|fail|error|complain|abandon|dispute|chargeback|declin|reject|lost|delet|uninstall|unsubscrib|bounce|without|late|defect)/i;
/** Status values worth a rate column of their own (a status with many values gets its first few). */
const MAX_STATUS_VALUES = 6;
/** Metric averages per query: enough to compare, few enough to read. */
const MAX_METRICS = 4;

export interface Measure {
  alias: string;
  sql: string;
  words: string[];
  /** `rate` values are fractions in [0, 1]. */
  kind: 'rate' | 'average' | 'total' | 'share';
  negative: boolean;
  /** A JOIN the measure needs (child existence). */
  join?: string;
  /** The metric column averaged or summed, when there is one. */
  metric?: string;
  /** SQL for the standard deviation of an average's values: the analysis tests gaps between means with it. */
  spreadSql?: string;
  /** For a mean duration: the two time columns it runs between. */
  duration?: { start: string; end: string };
}

function rateMeasure(name: string, condition: string): Measure {
  return { alias: name, sql: rateOf(condition), words: wordsOf(name), kind: 'rate', negative: NEGATIVE_WORDS.test(name) };
}

/** Money columns that are parts of a total (discounts, shipping, tax) rank after the total itself. */
const MONEY_PART_NAME = /(discount|shipping|tax|fee|cost|refund|sub)/i;
const MONEY_PREFERENCE = [
  /revenue/i,
  /total_amount|amount_total|^total$|grand_total|net_amount/i,
  /amount/i,
  /price/i,
  /spend|value|sales|paid|usd|eur|gbp|gmv|income/i,
];

function moneyRank(name: string): number {
  const rank = MONEY_PREFERENCE.findIndex((pattern) => pattern.test(name));
  return (rank < 0 ? MONEY_PREFERENCE.length : rank) + (MONEY_PART_NAME.test(name) ? MONEY_PREFERENCE.length + 1 : 0);
}

/** Money columns, the table's main amount first (`total_amount` before `subtotal` and `discount_amount`). */
export function moneyColumns(table: TableModel): TableModel['columns'] {
  return table.columns
    .filter((candidate) => candidate.role === 'metric' && MONEY_NAME.test(candidate.name))
    .map((metric, index) => ({ metric, index, rank: moneyRank(metric.name) }))
    .sort((left, right) => left.rank - right.rank || left.index - right.index)
    .map(({ metric }) => metric);
}

export function metricColumns(table: TableModel): TableModel['columns'] {
  const money = moneyColumns(table);
  // money first: it is what most areas are about
  return [...money, ...table.columns.filter((candidate) => candidate.role === 'metric' && !money.includes(candidate))].slice(
    0,
    MAX_METRICS,
  );
}

/** A status column whose values are measured as rates: an outcome, not a way to split rows. */
export function isOutcomeColumn(candidate: TableModel['columns'][number]): boolean {
  return candidate.role === 'text' && STATUS_NAME.test(candidate.name) && candidate.values !== undefined;
}

/** `avg_days_opened_to_closed`: the alias of the mean duration between two of a table's times. */
export function durationAlias(start: string, end: string): string {
  return alias('avg_days', start.replace(/_(at|on|date|time|ts)$/i, ''), 'to', milestoneName({ name: end }));
}

/** Alias of a measure's standard deviation, read back by the analysis to test a gap between means. */
export function spreadAlias(measureAlias: string): string {
  return alias('sd', measureAlias.replace(/^avg_/, ''));
}

/** The mean of a duration between the table's main time and each milestone, in days; rows without the end are left out. */
export function durationMeasures(dialect: SqlDialect, table: TableModel): Measure[] {
  const start = mainTime(table);
  if (!start) return [];
  return milestoneTimes(table).map((milestone) => ({
    alias: durationAlias(start.name, milestone.name),
    sql: `AVG(${dialect.fractionalDaysBetween(dialect.column('t', start.name), dialect.column('t', milestone.name))})`,
    spreadSql: `sqrt(${dialect.syntax.variance(dialect.fractionalDaysBetween(dialect.column('t', start.name), dialect.column('t', milestone.name)))})`,
    words: ['days', 'duration', 'time', ...wordsOf(start.name), ...wordsOf(milestoneName(milestone))],
    kind: 'average' as const,
    negative: false,
    duration: { start: start.name, end: milestone.name },
  }));
}

/**
 * Every measure of a table's rows, in the order a query should carry them when it cannot carry all:
 * durations first (what most records are judged by), then outcome shares and flags, metric averages
 * with the main amount's total and share, and last the milestone rates (which outcome shares often
 * repeat).
 */
export function rowMeasures(dialect: SqlDialect, table: TableModel): Measure[] {
  const measures: Measure[] = [...durationMeasures(dialect, table)];
  for (const status of table.columns.filter(isOutcomeColumn)) {
    for (const value of (status.values ?? []).slice(0, MAX_STATUS_VALUES))
      measures.push(
        rateMeasure(alias(status.name, value, 'rate'), `${dialect.column('t', status.name)} = ${dialect.syntax.string(value)}`),
      );
  }
  for (const flag of table.columns.filter((candidate) => candidate.role === 'flag'))
    measures.push(rateMeasure(alias(flag.name, 'rate'), dialect.column('t', flag.name)));
  const primaryMoney = moneyColumns(table)[0];
  for (const metric of metricColumns(table)) {
    const ref = dialect.syntax.toDouble(dialect.column('t', metric.name));
    measures.push({
      alias: alias('avg', metric.name),
      sql: `AVG(${ref})`,
      spreadSql: `sqrt(${dialect.syntax.variance(ref)})`,
      words: wordsOf(metric.name),
      kind: 'average',
      negative: NEGATIVE_WORDS.test(metric.name),
      metric: metric.name,
    });
    if (metric === primaryMoney) {
      measures.push({
        alias: alias('total', metric.name),
        sql: `SUM(${ref})`,
        words: [...wordsOf(metric.name), 'revenue'],
        kind: 'total',
        negative: false,
        metric: metric.name,
      });
      measures.push({
        alias: alias('share_of_total', metric.name),
        sql: `SUM(${ref}) / NULLIF(SUM(SUM(${ref})) OVER (), 0)`,
        words: [...wordsOf(metric.name), 'revenue'],
        kind: 'share',
        negative: false,
      });
    }
  }
  for (const milestone of milestoneTimes(table))
    measures.push(rateMeasure(alias(milestoneName(milestone), 'rate'), `${dialect.column('t', milestone.name)} IS NOT NULL`));
  return measures;
}

/** The share of parent rows that have at least one child row (`with_refunds_rate` on order items). */
export function childExistenceMeasure(dialect: SqlDialect, reference: Reference): Measure {
  const name = alias('with', reference.from.name, 'rate');
  return {
    alias: name,
    sql: rateOf('x.parent_key IS NOT NULL'),
    words: wordsOf(name),
    kind: 'rate',
    negative: NEGATIVE_WORDS.test(reference.from.name),
    join: `LEFT JOIN (SELECT DISTINCT ${dialect.column('c', reference.column.name)} AS parent_key FROM ${dialect.table(reference.from.qualified)} c) x ON x.parent_key = ${dialect.column('t', reference.toKey.name)}`,
  };
}
