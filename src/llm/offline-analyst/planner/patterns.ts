/**
 * Drafts for the patterns any table can hold, chosen from column roles alone: rows piling up on a
 * few values of a many-valued column, the mix of one column inside another, monthly counts and
 * durations per segment, the terms of a free-text column per segment, the table's measures across
 * brackets of a metric, correlations between measures, and rows that repeat each other exactly.
 */
import type { SqlDialect } from '../sql/dialect.js';
import {
  bracketQuery,
  correlationQuery,
  entityCountQuery,
  mixQuery,
  repeatedRowsQuery,
  segmentSpikeQuery,
  segmentTrendSummaryQuery,
  termsQuery,
  type CorrelationPair,
} from '../sql/pattern-queries.js';
import { isFreeText, isLookupTable, mainTime, type Reference } from '../schema-model.js';
import { profiledThroughSample } from '../sql/profile-query.js';
import { SEGMENT_ROWS_MAX } from '../sql/segment-query.js';
import { alias } from '../sql/dialect.js';
import { compareText, humanize, wordsOf } from '../text.js';
import type { ColumnModel, TableModel } from '../types.js';
import { timeSourceOf, type Draft } from './draft.js';
import { durationMeasures, isOutcomeColumn, metricColumns, moneyColumns, rowMeasures, type Measure } from './measures.js';
import { entitySegments, segmentsOf, type Segment } from './segments.js';

/** Priority a table far smaller than the largest one loses at most. */
const SMALLER_TABLE_PENALTY_MAX = 2;
/** Rows a table needs before patterns across its values mean anything. */
const MIN_PATTERN_ROWS = 30;
/** Months a table needs for a monthly series per segment. */
const MIN_MONTHLY_ROWS = 60;
/** Many-valued columns counted per table. */
const ENTITY_QUERIES = 2;
/** Columns followed month by month in one query. */
const MONTHLY_COLUMNS = 4;
/** Columns whose pairwise mix is measured in one query. */
const MIX_COLUMNS = 5;
/** Columns whose values' text terms are compared in one query. */
const TERM_COLUMNS = 3;
/** Columns whose values each get their own correlations. */
const CORRELATION_COLUMNS = 3;
/** Correlation pairs per query. */
const MAX_CORRELATION_PAIRS = 6;

function epochDays(dialect: SqlDialect, name: string): string {
  return dialect.epochDays(dialect.column('t', name));
}

/** The measure each monthly series follows: the first duration, else the first average. */
function followedMeasure(measures: readonly Measure[]): Measure | undefined {
  return measures.find((measure) => measure.duration !== undefined) ?? measures.find((measure) => measure.kind === 'average');
}

function plainSegments(segments: readonly Segment[]): Segment[] {
  return segments.filter((segment) => !segment.ordinal);
}

function entityDrafts(dialect: SqlDialect, table: TableModel, goal: string, measures: readonly Measure[]): Draft[] {
  const carried = [
    ...measures.filter((measure) => measure.duration !== undefined),
    ...measures.filter((measure) => measure.kind === 'rate' && !measure.duration).slice(0, 3),
  ];
  return entitySegments(dialect, table, goal)
    .slice(0, ENTITY_QUERIES)
    .map((segment, rank) => ({
      kind: 'entity',
      table,
      subject: `${table.qualified}:${segment.alias}`,
      sql: entityCountQuery(dialect, table, segment, carried),
      measureText: `rows per ${humanize(segment.alias)} (busiest first, with the median over all ${segment.distinct} values)`,
      segmentText: humanize(segment.alias),
      words: [...wordsOf(table.name), ...segment.words, 'share', 'concentration', 'imbalance', 'distribution', 'top'],
      priority: 4 + segment.interest * 0.5 - rank * 0.5,
    }));
}

/** Columns of one multi-column summary whose values, together, fit in the rows a digest shows. */
function fittingSegments(segments: readonly Segment[], maxColumns: number, maxRows = SEGMENT_ROWS_MAX): Segment[] {
  const chosen: Segment[] = [];
  let rows = 0;
  for (const segment of segments) {
    if (chosen.length >= maxColumns) break;
    if (rows + segment.distinct > maxRows && chosen.length > 0) continue;
    chosen.push(segment);
    rows += segment.distinct;
  }
  return chosen;
}

function monthlySegmentDrafts(
  dialect: SqlDialect,
  table: TableModel,
  references: readonly Reference[],
  segments: readonly Segment[],
  measures: readonly Measure[],
): Draft[] {
  const time = timeSourceOf(dialect, table, references);
  if (!time || table.rows < MIN_MONTHLY_ROWS) return [];
  const followed = followedMeasure(measures);
  const chosen = fittingSegments(plainSegments(segments), MONTHLY_COLUMNS);
  if (chosen.length === 0) return [];
  const names = chosen.map((segment) => humanize(segment.alias)).join(', ');
  const words = [...wordsOf(table.name), ...chosen.flatMap((segment) => segment.words), ...time.words, ...(followed?.words ?? [])];
  const subject = `${table.qualified}:month-by:${chosen.map((segment) => segment.alias).join(',')}`;
  return [
    {
      kind: 'segment-spikes',
      table,
      subject,
      sql: segmentSpikeQuery(dialect, table, chosen, time, followed),
      measureText: `months far above the median month per value of ${names}${followed ? `, with ${humanize(followed.alias)} inside and outside them` : ''}`,
      segmentText: names,
      words: [...words, 'spike', 'anomaly', 'month', 'unusual', 'window'],
      priority: 5.5,
    },
    {
      kind: 'segment-trends',
      table,
      subject: `${subject}:trend`,
      sql: segmentTrendSummaryQuery(dialect, table, chosen, time, followed),
      measureText: `rows per month${followed ? ` and ${humanize(followed.alias)}` : ''} in the first and last months per value of ${names}`,
      segmentText: names,
      words: [...words, 'trend', 'month', 'change', 'growth', 'over time'],
      priority: 5.4,
    },
  ];
}

function mixDrafts(dialect: SqlDialect, table: TableModel, segments: readonly Segment[], entities: readonly Segment[]): Draft[] {
  const plain = plainSegments(segments).filter((segment) => segment.distinct >= 2);
  // an entity inside the dimensions (managers within departments): who carries each group
  const chosen = [...plain.slice(0, MIX_COLUMNS - (entities.length > 0 ? 1 : 0)), ...entities.slice(0, 1)];
  if (chosen.length < 2) return [];
  const names = chosen.map((segment) => humanize(segment.alias)).join(', ');
  return [
    {
      kind: 'mix',
      table,
      subject: `${table.qualified}:mix:${chosen.map((segment) => segment.alias).join(',')}`,
      sql: mixQuery(dialect, table, chosen),
      measureText: `mix of each pair of ${names} (share of one value within the other, against elsewhere)`,
      segmentText: names,
      words: [
        ...wordsOf(table.name),
        ...chosen.flatMap((segment) => segment.words),
        'mix',
        'share',
        'concentration',
        'distribution',
        'dominance',
      ],
      priority: 5,
    },
  ];
}

function termDrafts(dialect: SqlDialect, table: TableModel, segments: readonly Segment[]): Draft[] {
  const text = table.columns
    .filter(isFreeText)
    .sort((left, right) => (right.words ?? 0) - (left.words ?? 0) || compareText(left.name, right.name))[0];
  const chosen = plainSegments(segments).slice(0, TERM_COLUMNS);
  if (!text || chosen.length === 0) return [];
  const sql = termsQuery(dialect, table, text, chosen);
  if (sql === undefined) return [];
  const names = chosen.map((segment) => humanize(segment.alias)).join(', ');
  return [
    {
      kind: 'terms',
      table,
      subject: `${table.qualified}:terms:${text.name}`,
      sql,
      measureText: `terms of ${humanize(text.name)} over-represented in one value of ${names}`,
      segmentText: names,
      words: [
        ...wordsOf(table.name),
        ...wordsOf(text.name),
        ...chosen.flatMap((segment) => segment.words),
        'text',
        'terms',
        'words',
        'description',
      ],
      priority: 4.8,
    },
  ];
}

/**
 * Exact repeats hash every row by many columns at once: asked of tables up to this many rows only,
 * past which the question costs more than one statement's time (docs/warehouses.md, the scale bench).
 */
export const REPEATED_ROWS_MAX_TABLE_ROWS = 5_000_000;

function bracketDrafts(dialect: SqlDialect, table: TableModel, measures: readonly Measure[]): Draft[] {
  const metric = moneyColumns(table)[0] ?? metricColumns(table)[0];
  if (!metric) return [];
  const carried = measures.filter(
    (measure) =>
      measure.kind === 'rate' || measure.duration !== undefined || (measure.kind === 'average' && measure.metric !== metric.name),
  );
  if (carried.length === 0) return [];
  return [
    {
      kind: 'brackets',
      table,
      subject: `${table.qualified}:${metric.name}:brackets`,
      sql: bracketQuery(dialect, table, metric, carried, dialect.name === 'duckdb' && profiledThroughSample(dialect, table)),
      measureText: `${carried
        .slice(0, 3)
        .map((measure) => humanize(measure.alias))
        .join(', ')} across quartile brackets of ${humanize(metric.name)}`,
      segmentText: `${humanize(metric.name)} bracket`,
      words: [
        ...wordsOf(table.name),
        ...wordsOf(metric.name),
        ...carried.flatMap((measure) => measure.words),
        'bracket',
        'range',
        'driver',
      ],
      priority: 4.2,
    },
  ];
}

function correlationDrafts(dialect: SqlDialect, table: TableModel, segments: readonly Segment[]): Draft[] {
  const metrics = metricColumns(table);
  const start = mainTime(table);
  const durations = durationMeasures(dialect, table);
  const pairs: CorrelationPair[] = [];
  const value = (candidate: ColumnModel) => dialect.syntax.toDouble(dialect.column('t', candidate.name));
  for (const metric of metrics) {
    for (const duration of durations) {
      if (!duration.duration) continue;
      pairs.push({
        alias: alias('corr', metric.name, 'days', duration.duration.start, 'to', duration.duration.end),
        x: value(metric),
        y: dialect.fractionalDaysBetween(dialect.column('t', duration.duration.start), dialect.column('t', duration.duration.end)),
      });
    }
  }
  for (const [index, left] of metrics.entries()) {
    for (const right of metrics.slice(index + 1))
      pairs.push({ alias: alias('corr', left.name, right.name), x: value(left), y: value(right) });
  }
  // how a duration or a metric moves with the date a record started
  if (start) {
    for (const duration of durations) {
      if (!duration.duration) continue;
      pairs.push({
        alias: alias('corr', start.name, 'days', duration.duration.start, 'to', duration.duration.end),
        x: epochDays(dialect, start.name),
        y: dialect.fractionalDaysBetween(dialect.column('t', duration.duration.start), dialect.column('t', duration.duration.end)),
      });
    }
  }
  const split = fittingSegments(plainSegments(segments), CORRELATION_COLUMNS, SEGMENT_ROWS_MAX - 1);
  if (pairs.length === 0 || split.length === 0) return [];
  const names = split.map((segment) => humanize(segment.alias)).join(', ');
  const chosen = pairs.slice(0, MAX_CORRELATION_PAIRS);
  return [
    {
      kind: 'correlation',
      table,
      subject: `${table.qualified}:corr`,
      sql: correlationQuery(dialect, table, split, chosen),
      measureText: `correlations between ${chosen.map((pair) => humanize(pair.alias.replace(/^corr_/, ''))).join('; ')}, overall and per value of ${names}`,
      segmentText: names,
      words: [
        ...wordsOf(table.name),
        ...split.flatMap((segment) => segment.words),
        ...metrics.flatMap((metric) => wordsOf(metric.name)),
        'correlation',
        'relationship',
        'driver',
      ],
      priority: 4.6,
    },
  ];
}

function repeatedDrafts(dialect: SqlDialect, table: TableModel, segments: readonly Segment[], entities: readonly Segment[]): Draft[] {
  const metrics = metricColumns(table);
  const owner = entities[0] ?? plainSegments(segments)[0];
  if (metrics.length === 0 || !owner || table.rows > REPEATED_ROWS_MAX_TABLE_ROWS) return [];
  const identity = [
    ...metrics,
    ...segments
      .filter((segment) => segment.source === table && segment.column !== owner.column && !isOutcomeColumn(segment.column))
      .map((segment) => segment.column),
  ];
  return [
    {
      kind: 'repeated',
      table,
      subject: `${table.qualified}:${owner.alias}:repeated`,
      sql: repeatedRowsQuery(dialect, table, owner, identity),
      measureText: `rows repeating another row on ${[owner.column, ...identity].map((candidate) => humanize(candidate.name)).join(', ')}, per ${humanize(owner.alias)}`,
      segmentText: humanize(owner.alias),
      words: [...wordsOf(table.name), ...owner.words, 'duplicate', 'repeated', 'identical', 'anomaly', 'unusual'],
      priority: 3.6,
    },
  ];
}

export function patternDrafts(
  dialect: SqlDialect,
  table: TableModel,
  tables: readonly TableModel[],
  references: readonly Reference[],
  goal: string,
): Draft[] {
  if (isLookupTable(table) || table.rows < MIN_PATTERN_ROWS) return [];
  const measures = rowMeasures(dialect, table);
  const segments = segmentsOf(dialect, table, tables, goal).filter((segment) => segment.source === table);
  const entities = entitySegments(dialect, table, goal);
  // with several tables the budget goes to the largest first: a table a tenth its size loses two points
  const largest = Math.max(...tables.map((candidate) => candidate.rows), table.rows);
  const smaller = Math.min(
    SMALLER_TABLE_PENALTY_MAX,
    Math.log10(Math.max(1, largest / Math.max(1, table.rows))) * SMALLER_TABLE_PENALTY_MAX,
  );
  return [
    ...entityDrafts(dialect, table, goal, measures),
    ...monthlySegmentDrafts(dialect, table, references, segments, measures),
    ...mixDrafts(dialect, table, segments, entities),
    ...termDrafts(dialect, table, segments),
    ...bracketDrafts(dialect, table, measures),
    ...correlationDrafts(dialect, table, segments),
    ...repeatedDrafts(dialect, table, segments, entities),
  ].map((draft) => ({ ...draft, priority: draft.priority - smaller }));
}
