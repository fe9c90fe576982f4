/**
 * The ways a table's rows can be split into segments: its own low-cardinality columns, small ordinal
 * scales, and attributes of the tables it references (a lookup table's label, a larger table's
 * low-cardinality columns: orders → customers.region, order_items → products.category).
 */
import { alias } from '../sql/dialect.js';
import type { SqlDialect } from '../sql/dialect.js';
import { isOutcomeColumn } from './measures.js';
import {
  DIMENSION_MAX_DISTINCT,
  findReferences,
  isDimension,
  isEntity,
  isLookupTable,
  isPersonTable,
  labelColumns,
  type Reference,
} from '../schema-model.js';
import { compareText, mentionsStem, wordsOf } from '../text.js';
import type { ColumnModel, TableModel } from '../types.js';

/** Dimensions worth splitting by first: they usually separate behaviour. */
const TELLING_DIMENSION =
  /(device|platform|channel|source|region|country|location|city|site|branch|department|team|category|segment|tier|plan|content_type|campaign|promo|os$|type$|status|cohort|medium|genre|difficulty)/i;
/** Columns that record who or what last touched a row (audit trail), not a property of the row. */
const AUDIT_DIMENSION = /(^sys_|_sys_|updated|modified|changed|created_by|^etl|_etl)/i;
/** How much a column named in the team's goal (by name or by one of its values) gains. */
const GOAL_BONUS = 2;
/** Segments kept per table, most telling first. */
export const MAX_SEGMENTS_PER_TABLE = 6;
/** An ordered scale with more positions than this is summarised by its worst positions instead of listed. */
export const DIMENSION_LIMIT_FOR_LONG_SCALES = DIMENSION_MAX_DISTINCT;

export interface Segment {
  /** Output column name. */
  alias: string;
  /** SQL for the value, over the base table aliased `t` (and the join's alias). */
  expression: string;
  /** JOIN clause(s) the expression needs. */
  join: string;
  /** What the segment is called in prose (`acquisition channel name`). */
  words: string[];
  /** Whether the values are an ordered scale (levels): grouped and ordered numerically. */
  ordinal: boolean;
  distinct: number;
  interest: number;
  /** The table whose column names the segment. */
  source: TableModel;
  column: ColumnModel;
}

/** Text as each engine names it (DuckDB/PostgreSQL `VARCHAR`, MySQL `text`/`varchar(n)`, ClickHouse `String`, BigQuery `STRING`). */
const PLAIN_TEXT_TYPE =
  /^(varchar|character varying|text|tinytext|mediumtext|longtext|char|character|string|lowcardinality\(string\))(\(\d+\))?$/i;

function valueExpression(dialect: SqlDialect, tableAlias: string, target: ColumnModel): string {
  const ref = dialect.column(tableAlias, target.name);
  if (target.role === 'ordinal') return ref;
  if (target.role === 'flag' || !PLAIN_TEXT_TYPE.test(target.type.trim()) || target.nullable)
    return `COALESCE(${dialect.syntax.toText(ref)}, '(none)')`;
  return ref;
}

/** `acquisition_channel_id` + `channel_name` → `acquisition_channel_name`. */
function referenceAlias(reference: Reference, target: ColumnModel): string {
  const base = reference.column.name.replace(/_(id|key|uuid)$/i, '');
  const baseWords = base.split('_');
  const targetWords = target.name.split('_');
  const overlap = baseWords.at(-1) === targetWords[0] ? targetWords.slice(1) : targetWords;
  return alias(base, ...overlap);
}

function interestOf(name: string, label: boolean, target: ColumnModel): number {
  if (target.role === 'ordinal') return 2.5;
  if (label) return 3;
  if (AUDIT_DIMENSION.test(name)) return 0;
  if (TELLING_DIMENSION.test(name)) return 2.5;
  // two values split rows coarsely; a handful to a dozen separate behaviour best
  return target.distinct !== undefined && target.distinct >= 3 ? 1.5 : 1;
}

/**
 * Whether the team's goal names a column, by its words (`department`) or by one of its values
 * (`Finance`): that split is what the team asked about.
 */
export function goalMentions(goal: string, target: ColumnModel): boolean {
  if (goal.trim() === '') return false;
  const nameWords = wordsOf(target.name).filter((word) => word.length >= 4 && !/^(date|time|name|type|code)$/.test(word));
  if (nameWords.some((word) => mentionsStem(goal, word))) return true;
  return (target.values ?? []).some(
    (value) => value.length >= 2 && new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(value)}($|[^\\p{L}\\p{N}])`, 'iu').test(goal),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A referenced table that references nothing itself describes things (products, levels): its attributes split facts well. */
function isDescriptive(reference: Reference, references: readonly Reference[]): boolean {
  return !isPersonTable(reference.to) && !references.some((other) => other.from.qualified === reference.to.qualified);
}

function ownSegment(dialect: SqlDialect, table: TableModel, candidate: ColumnModel, goal: string): Segment {
  return {
    alias: alias(candidate.name),
    expression: valueExpression(dialect, 't', candidate),
    join: '',
    words: wordsOf(candidate.name),
    ordinal: candidate.role === 'ordinal',
    distinct: candidate.distinct ?? 0,
    interest: interestOf(candidate.name, false, candidate) + (goalMentions(goal, candidate) ? GOAL_BONUS : 0),
    source: table,
    column: candidate,
  };
}

/** A table's columns with many repeated values (owners, managers, users), as segments: rows per value, busiest first. */
export function entitySegments(dialect: SqlDialect, table: TableModel, goal = ''): Segment[] {
  return table.columns
    .filter((candidate) => isEntity(candidate, table.rows))
    .map((candidate) => ownSegment(dialect, table, candidate, goal))
    .sort((left, right) => right.interest - left.interest || left.distinct - right.distinct || compareText(left.alias, right.alias));
}

export function ownSegments(dialect: SqlDialect, table: TableModel, goal = ''): Segment[] {
  return table.columns
    .filter((candidate) => !isOutcomeColumn(candidate))
    .filter((candidate) => isDimension(candidate) || (candidate.role === 'ordinal' && (candidate.distinct ?? 0) >= 2))
    .map((candidate) => ownSegment(dialect, table, candidate, goal));
}

export function referencedSegments(dialect: SqlDialect, table: TableModel, tables: readonly TableModel[]): Segment[] {
  const segments: Segment[] = [];
  const allReferences = findReferences(tables);
  const references = allReferences.filter((reference) => reference.from.qualified === table.qualified);
  references.forEach((reference, index) => {
    const joinAlias = `r${index + 1}`;
    const join = `LEFT JOIN ${dialect.table(reference.to.qualified)} ${joinAlias} ON ${dialect.column(joinAlias, reference.toKey.name)} = ${dialect.column('t', reference.column.name)}`;
    const lookup = isLookupTable(reference.to);
    const label = lookup ? labelColumns(reference.to)[0] : undefined;
    // a lookup table's other label (a name next to a code) would split the rows the same way again
    const otherLabels = new Set(labelColumns(reference.to).map((candidate) => candidate.name));
    const targets = [
      ...(label ? [label] : []),
      ...reference.to.columns.filter(
        (candidate) => isDimension(candidate) && !otherLabels.has(candidate.name) && !isOutcomeColumn(candidate),
      ),
    ];
    const seen = new Set<string>();
    for (const target of targets) {
      if (seen.has(target.name)) continue;
      seen.add(target.name);
      const name = referenceAlias(reference, target);
      segments.push({
        alias: name,
        // a LEFT JOIN can miss: every referenced value is coalesced so the missing ones form a segment with a name
        expression: `COALESCE(${dialect.syntax.toText(dialect.column(joinAlias, target.name))}, '(none)')`,
        join,
        words: wordsOf(name),
        ordinal: false,
        distinct: target.distinct ?? reference.to.rows,
        interest:
          target === label
            ? interestOf(name, true, target)
            : interestOf(name, false, target) - (lookup ? 1 : 0) + (lookup ? 0 : isDescriptive(reference, allReferences) ? 0.5 : -0.5),
        source: reference.to,
        column: target,
      });
    }
  });
  return segments;
}

/** The most telling segments of a table, own and referenced, without duplicates. */
export function segmentsOf(dialect: SqlDialect, table: TableModel, tables: readonly TableModel[], goal = ''): Segment[] {
  const all = [...ownSegments(dialect, table, goal), ...referencedSegments(dialect, table, tables)];
  const unique = new Map<string, Segment>();
  for (const segment of all) if (!unique.has(segment.alias)) unique.set(segment.alias, segment);
  return [...unique.values()]
    .sort((left, right) => right.interest - left.interest || left.distinct - right.distinct || compareText(left.alias, right.alias))
    .slice(0, MAX_SEGMENTS_PER_TABLE);
}
