/**
 * Measurable claims for findings, read from the SQL that produced them: which table the rows come
 * from, which column a segment is, and how a measure was computed (a mean of a column, the mean
 * duration between two time columns, the share of rows meeting a condition, a row count). Only the
 * shapes the analyst's own queries use are recognised; anything else (joins, derived segments) gets
 * no claim, and verification then recounts the finding's rows only. The verifier rebuilds every
 * claim with its own SQL, so nothing here can make a finding look confirmed by itself.
 */
import type { Claim, ClaimCondition, ClaimMetric } from '../../../domain/index.js';

const IDENTIFIER = '(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)';
const COLUMN = String.raw`t\.(${IDENTIFIER})`;
const STRING = "'(?:[^']|'')*'";

function unquote(identifier: string): string {
  return identifier.startsWith('"') ? identifier.slice(1, -1).replace(/""/g, '"') : identifier;
}

function escapeAlias(name: string): string {
  const plain = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `(?:${plain}|"${plain}")`;
}

/** The table the rows of an analyst query come from (`FROM schema.table t`), when no other table is joined in. */
export function sourceTable(sql: string): string | undefined {
  // a join to another warehouse table mixes its rows in; joins between the query's own CTEs do not
  if (new RegExp(String.raw`\bJOIN\s+${IDENTIFIER}\.`, 'i').test(sql)) return undefined;
  const match = new RegExp(String.raw`\bFROM\s+(${IDENTIFIER}(?:\.${IDENTIFIER})+)\s+t\b`, 'i').exec(sql);
  if (!match) return undefined;
  return (match[1] as string)
    .split(/\.(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .map(unquote)
    .join('.');
}

/** The table column a result column names, when it is a plain (or coalesced) column of `t`. */
export function segmentSource(sql: string, outputAlias: string): string | undefined {
  const wanted = escapeAlias(outputAlias);
  const patterns = [
    new RegExp(String.raw`COALESCE\(CAST\(${COLUMN} AS (?:VARCHAR|TEXT)\), '\(none\)'\) AS ${wanted}(?![\w"])`, 'i'),
    new RegExp(String.raw`(?<![\w.])${COLUMN} AS ${wanted}(?![\w"])`, 'i'),
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(sql);
    if (match) return unquote(match[1] as string);
  }
  // a CTE that renames the value (`… AS segment_value` … `segment_value AS "category"`)
  const renamed = new RegExp(String.raw`(\w+) AS ${wanted}(?![\w"])`, 'i').exec(sql)?.[1];
  return renamed && renamed !== outputAlias ? sourceOfRenamed(sql, renamed) : undefined;
}

export type MeasureSource =
  | { kind: 'mean'; column: string }
  | { kind: 'duration_mean'; start: string; end: string }
  | { kind: 'rate'; condition: ClaimCondition };

/** How a result column was computed, for the measure shapes the analyst writes. */
export function measureSource(sql: string, outputAlias: string): MeasureSource | undefined {
  const wanted = escapeAlias(outputAlias);
  const end = String.raw`\s+AS\s+${wanted}(?![\w"])`;
  let match = new RegExp(
    String.raw`AVG\(\(epoch\(CAST\(${COLUMN} AS TIMESTAMP\)\) - epoch\(CAST\(${COLUMN} AS TIMESTAMP\)\)\) / 86400\.0\)${end}`,
    'i',
  ).exec(sql);
  if (match) return { kind: 'duration_mean', end: unquote(match[1] as string), start: unquote(match[2] as string) };
  match = new RegExp(
    String.raw`AVG\(EXTRACT\(EPOCH FROM \(CAST\(${COLUMN} AS TIMESTAMP\) - CAST\(${COLUMN} AS TIMESTAMP\)\)\) / 86400\.0\)${end}`,
    'i',
  ).exec(sql);
  if (match) return { kind: 'duration_mean', end: unquote(match[1] as string), start: unquote(match[2] as string) };
  match = new RegExp(String.raw`AVG\(CAST\(${COLUMN} AS DOUBLE PRECISION\)\)${end}`, 'i').exec(sql);
  if (match) return { kind: 'mean', column: unquote(match[1] as string) };
  match = new RegExp(String.raw`AVG\(CASE WHEN ${COLUMN} = (${STRING}) THEN 1\.0 ELSE 0\.0 END\)${end}`, 'i').exec(sql);
  if (match)
    return {
      kind: 'rate',
      condition: { column: unquote(match[1] as string), op: '=', value: (match[2] as string).slice(1, -1).replace(/''/g, "'") },
    };
  match = new RegExp(String.raw`AVG\(CASE WHEN ${COLUMN} IS NOT NULL THEN 1\.0 ELSE 0\.0 END\)${end}`, 'i').exec(sql);
  if (match) return { kind: 'rate', condition: { column: unquote(match[1] as string), op: 'not_null' } };
  match = new RegExp(String.raw`AVG\(CASE WHEN ${COLUMN} THEN 1\.0 ELSE 0\.0 END\)${end}`, 'i').exec(sql);
  if (match) return { kind: 'rate', condition: { column: unquote(match[1] as string), op: '=', value: true } };
  return undefined;
}

function metricOf(table: string, source: MeasureSource, label: string): ClaimMetric {
  switch (source.kind) {
    case 'mean':
      return { kind: 'mean', table, column: source.column, filters: [], label };
    case 'duration_mean':
      return { kind: 'duration_mean', table, start_column: source.start, end_column: source.end, unit: 'days', filters: [], label };
    case 'rate':
      return { kind: 'rate', table, condition: source.condition, filters: [], label };
  }
}

export interface GapClaimInput {
  sql: string;
  segmentColumn: string;
  segmentValue: string | number;
  measureColumn: string;
  value: number;
  restValue: number;
  label: string;
}

/** "The segment's measure is higher (lower) than the rest's", when the SQL says what the segment and the measure are. */
export function gapClaim(input: GapClaimInput): Claim | undefined {
  const table = sourceTable(input.sql);
  const column = segmentSource(input.sql, input.segmentColumn);
  const source = measureSource(input.sql, input.measureColumn);
  if (!table || !column || !source || input.segmentValue === '(none)' || input.value === input.restValue) return undefined;
  return {
    metric: metricOf(table, source, input.label),
    segment: { column, value: input.segmentValue },
    comparison: { kind: 'rest' },
    value: input.value,
    comparison_value: input.restValue,
    direction: input.value > input.restValue ? 'higher' : 'lower',
  };
}

export interface CountClaimInput {
  sql: string;
  segmentColumn: string;
  segmentValue: string | number;
  count: number;
  comparisonValue: string | number;
  comparisonCount: number;
  label: string;
}

/** "This value has more rows than that typical value", for a segment that is a plain column. */
export function countClaim(input: CountClaimInput): Claim | undefined {
  const table = sourceTable(input.sql);
  const column = segmentSource(input.sql, input.segmentColumn);
  if (!table || !column || input.segmentValue === '(none)' || input.comparisonValue === '(none)' || input.count === input.comparisonCount)
    return undefined;
  return {
    metric: { kind: 'count', table, filters: [], label: input.label },
    segment: { column, value: input.segmentValue },
    comparison: { kind: 'group', group: { column, value: input.comparisonValue } },
    value: input.count,
    comparison_value: input.comparisonCount,
    direction: input.count > input.comparisonCount ? 'higher' : 'lower',
  };
}

export interface MixClaimInput {
  sql: string;
  /** Real column names (a mix result carries them as values). */
  outerColumn: string;
  outerValue: string | number;
  innerColumn: string;
  innerValue: string | number;
  share: number;
  shareElsewhere: number;
  label: string;
}

/** "Within this outer value, the share of rows with that inner value is higher than in the other outer values." */
export function mixClaim(input: MixClaimInput): Claim | undefined {
  const table = sourceTable(input.sql);
  const columnsInSql = [input.outerColumn, input.innerColumn].every((name) =>
    new RegExp(
      String.raw`\bt\.(?:${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|"${name.replace(/"/g, '""').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}")(?![\w"])`,
    ).test(input.sql),
  );
  if (!table || !columnsInSql || input.outerValue === '(none)' || input.innerValue === '(none)' || input.share === input.shareElsewhere)
    return undefined;
  return {
    metric: {
      kind: 'rate',
      table,
      condition: { column: input.innerColumn, op: '=', value: input.innerValue },
      filters: [],
      label: input.label,
    },
    segment: { column: input.outerColumn, value: input.outerValue },
    comparison: { kind: 'rest' },
    value: input.share,
    comparison_value: input.shareElsewhere,
    direction: input.share > input.shareElsewhere ? 'higher' : 'lower',
  };
}

function sourceOfRenamed(sql: string, name: string): string | undefined {
  for (const pattern of [
    new RegExp(String.raw`COALESCE\(CAST\(${COLUMN} AS (?:VARCHAR|TEXT)\), '\(none\)'\) AS ${name}\b`, 'i'),
    new RegExp(String.raw`(?<![\w.])${COLUMN} AS ${name}\b`, 'i'),
  ]) {
    const match = pattern.exec(sql);
    if (match) return unquote(match[1] as string);
  }
  return undefined;
}
