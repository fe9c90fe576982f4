/**
 * Profiling a table for mining: one statement reads every column's non-null count, distinct values,
 * range, mean and words per value; a second reads the most frequent values of the columns that can
 * be grouped by. Roles follow from type, name and those figures (see MiningRole). Large tables are
 * read through a uniform sample, and every finding on them says it is approximate.
 */
import type { ClaimDerived } from '../../domain/index.js';
import type { TableDescription } from '../../warehouse/port.js';
import type { CalendarPart, SqlSyntax } from '../../warehouse/sql-syntax/index.js';
import { nameWords } from '../packs/generation/warehouse-facts.js';
import { columnLabel } from './column-labels.js';
import type { DurationMeasure, MiningColumn, MiningRole, MiningTable, TimeAxis, ValueCount } from './mining-table.js';
import type { MiningQueryRunner } from './query-runner.js';

/** Above this many rows a table is mined through a sample of MINING_SAMPLE_ROWS rows. */
export const MINING_SAMPLE_THRESHOLD = 2_000_000;
export const MINING_SAMPLE_ROWS = 500_000;
/**
 * Above this many rows the sample is read block by block where the engine can (`blockSampledTable`):
 * a row sample filters every row, once per statement — at 50M rows on 2 loaded cores about 17 s a
 * statement, so the 180 s mining budget ran out after 11 statements; a block sample reads its rows only.
 */
export const MINING_BLOCK_SAMPLE_THRESHOLD = 10_000_000;
/** A dimension has at most this many values; more, and its top values are grouped as an entity. */
export const DIMENSION_MAX_VALUES = 30;
/** Values kept per grouped column (the rest are pooled as "other" by the finders). */
export const TOP_VALUES_KEPT = 40;
/** An entity repeats each value on this many rows on average, at least. */
export const ENTITY_MIN_ROWS_PER_VALUE = 2.5;
/** Text of at least this many words per value is free text: its terms are counted, it is never grouped. */
export const FREE_TEXT_MIN_WORDS = 3;
/** Integers with at most this many values are levels (a grade, a count of bedrooms): grouped, not averaged. */
export const ORDINAL_MAX_VALUES = 12;

const TEMPORAL_TYPE = /^(date|timestamp|datetime)/i;
/** BOOLEAN, and how MySQL/MariaDB (`tinyint(1)`) and ClickHouse (`Bool`, `Nullable(Bool)`) store it. */
const BOOLEAN_TYPE = /^(bool|boolean|tinyint\(1\)|nullable\(bool\))$/i;
/** … and ClickHouse's `Int8`–`Int256`, `UInt8`–`UInt256` (catalog types come without `Nullable(…)`). */
const INTEGER_TYPE =
  /^(tinyint|smallint|integer|int|int2|int4|int8|bigint|hugeint|utinyint|usmallint|uinteger|ubigint|uhugeint|long|short|uint8|u?int(16|32|64|128|256))\b/i;
const NUMERIC_TYPE = /^(decimal|numeric|real|float|float4|float8|float32|float64|double|money)\b/i;
const IDENTIFIER_NAME = /(^id$|_id$|[a-z]Id$|_key$|^uuid$|_uuid$|^guid$|_guid$|_no$|_nbr$|^number$|_number$)/;
/** Values read as the positive side of a two-valued outcome. */
const POSITIVE_VALUES = /^(yes|y|true|t|1|on|positive|pos)$/i;
const NEGATIVE_VALUES = /^(no|n|false|f|0|off|negative|neg)$/i;
/** Names of quantities that add up (amounts of money, counts of things); never rates, levels or sizes of one thing. */
const ADDITIVE_NAME =
  /(^|_)(amount|amt|revenue|sales|sale|cost|costs|spend|spent|gross|budget|income|profit|paid|payment|fee|fees|count|cases|deaths|quantity|qty|units|volume|visits|sessions|clicks|orders|tickets|items|downloads|installs|views|impressions|hours_worked|total)(_|$)/i;
const CURRENCY_NAME = /(^|_)(usd|eur|gbp|dollars?|euros?)$/i;
const YEAR_NAME = /(^|_)(year|yr|yyyy|season)$/i;
const MONTH_NAME = /(^|_)(month|mon|mo|mth)(_sold|_num|_no)?$|^mo_sold$/i;
const HOUR_NAME = /(^|_)(hour|hr)(_of_day)?$/i;
const WEEKDAY_NAME = /(^|_)(weekday|day_of_week|dow)$/i;

export interface ProfileInput {
  /** The table, with its derived values listed as columns (their types as the relation computes them). */
  table: TableDescription;
  derived: ClaimDerived[];
  /** The table's relation: its FROM clause (sampled when large) and column expressions. */
  relation: { from: string; expr(name: string): string };
  sampled: boolean;
  description: string;
  noun: string;
  /** Labels of derived values ("number of orders"); own columns are labelled from the description. */
  labels: ReadonlyMap<string, string>;
}

function num(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

type Kind = 'temporal' | 'boolean' | 'integer' | 'numeric' | 'text';

function kindOf(type: string): Kind {
  const trimmed = type.trim();
  if (TEMPORAL_TYPE.test(trimmed)) return 'temporal';
  if (BOOLEAN_TYPE.test(trimmed)) return 'boolean';
  if (INTEGER_TYPE.test(trimmed)) return 'integer';
  if (NUMERIC_TYPE.test(trimmed)) return 'numeric';
  return 'text';
}

/** Column aliases in profile statements: positional, so no warehouse name ever becomes SQL text. */
const alias = (index: number, what: string) => `c${index}_${what}`;

function statsSelect(syntax: SqlSyntax, table: TableDescription, expr: (name: string) => string): string[] {
  const parts = ['count(*) AS row_count'];
  table.columns.forEach((column, index) => {
    const id = expr(column.name);
    const kind = kindOf(column.type);
    parts.push(`count(${id}) AS ${alias(index, 'n')}`, `${syntax.approxDistinct(id)} AS ${alias(index, 'd')}`);
    if (kind === 'integer' || kind === 'numeric') {
      parts.push(
        `${syntax.toDouble(`min(${id})`)} AS ${alias(index, 'min')}`,
        `${syntax.toDouble(`max(${id})`)} AS ${alias(index, 'max')}`,
        `${syntax.toDouble(`avg(${id})`)} AS ${alias(index, 'mean')}`,
      );
      if (kind === 'numeric') parts.push(`count(CASE WHEN ${id} <> round(${id}) THEN 1 END) AS ${alias(index, 'frac')}`);
    } else if (kind === 'temporal') {
      parts.push(
        `${syntax.toText(`min(${id})`)} AS ${alias(index, 'min')}`,
        `${syntax.toText(`max(${id})`)} AS ${alias(index, 'max')}`,
        `${syntax.approxDistinct(syntax.calendarPart(id, 'hour_of_day'))} AS ${alias(index, 'hours')}`,
      );
    } else if (kind === 'text') {
      parts.push(`${syntax.wordCount(id)} AS ${alias(index, 'words')}`);
    }
  });
  return parts;
}

function calendarOf(name: string, kind: Kind, min: number | undefined, max: number | undefined): CalendarPart | undefined {
  if (kind !== 'integer' || min === undefined || max === undefined) return undefined;
  if (MONTH_NAME.test(name) && min >= 1 && max <= 12) return 'month_of_year';
  if (HOUR_NAME.test(name) && min >= 0 && max <= 23) return 'hour_of_day';
  if (WEEKDAY_NAME.test(name) && min >= 0 && max <= 7) return 'day_of_week';
  return undefined;
}

function roleOf(
  column: { name: string; type: string; category: string },
  kind: Kind,
  figures: {
    rows: number;
    nonNull: number;
    distinct: number;
    min?: number | undefined;
    max?: number | undefined;
    words?: number | undefined;
    fractional: boolean;
  },
): MiningRole {
  const { nonNull, distinct } = figures;
  if (nonNull === 0 || distinct <= 1) return 'other';
  // a number named like a reference but shared by many rows is a level or a small list (level_number): grouped by
  const sharedNumber =
    (kind === 'integer' || kind === 'numeric') &&
    !/(_id|Id|_key|uuid|guid)$/.test(column.name) &&
    distinct <= 200 &&
    nonNull / distinct >= 5;
  if (column.category === 'primary_key' && !sharedNumber) return 'id';
  if (IDENTIFIER_NAME.test(column.name) && !sharedNumber) return 'id';
  if (sharedNumber && IDENTIFIER_NAME.test(column.name)) return distinct <= DIMENSION_MAX_VALUES ? 'dimension' : 'entity';
  if (kind === 'temporal') return 'time';
  if (kind === 'boolean' || distinct === 2) return 'binary';
  if (calendarOf(column.name, kind, figures.min, figures.max)) return 'calendar';
  if (kind === 'integer' && YEAR_NAME.test(column.name) && (figures.min ?? 0) >= 1800 && (figures.max ?? 0) <= 2200)
    return distinct <= 2 ? 'binary' : 'period';
  if (kind === 'integer' || kind === 'numeric') {
    // a number unique on nearly every row of a big table is a code, not a quantity
    if (kind === 'integer' && distinct >= 0.98 * nonNull && nonNull > 100 && !figures.fractional) return 'id';
    if (kind === 'integer' && distinct <= ORDINAL_MAX_VALUES) return 'dimension';
    return 'measure';
  }
  if ((figures.words ?? 0) >= FREE_TEXT_MIN_WORDS) return 'text';
  if (distinct <= DIMENSION_MAX_VALUES && nonNull / distinct >= 2) return 'dimension';
  if (nonNull / distinct >= ENTITY_MIN_ROWS_PER_VALUE) return 'entity';
  return 'other';
}

/** Grouped columns get their most frequent values read. */
const GROUPED: ReadonlySet<MiningRole> = new Set(['dimension', 'binary', 'entity', 'calendar', 'period']);

function typedValue(raw: unknown, kind: Kind): string | number | boolean {
  if (kind === 'boolean') return raw === true || raw === 'true';
  if (kind === 'integer' || kind === 'numeric') return num(raw) ?? String(raw);
  return String(raw);
}

function positiveOf(top: readonly ValueCount[]): string | number | boolean | undefined {
  if (top.length !== 2) return undefined;
  const [first, second] = top as [ValueCount, ValueCount];
  const positive = top.find((item) => POSITIVE_VALUES.test(String(item.value)));
  const negative = top.find((item) => NEGATIVE_VALUES.test(String(item.value)));
  if (positive && negative && positive !== negative) return positive.value;
  // no yes/no wording: the rarer value is the event whose rate matters (defaulted, churned)
  return first.count <= second.count ? first.value : second.value;
}

const MONTH_SPAN_MS = 30.44 * 86_400_000;

/** The grain that cuts a time span into a readable series: 8–60 periods where possible. */
/** A series is cut into at most this many periods: the finest grain that stays below it (a week in a year of data). */
const MAX_SERIES_PERIODS = 60;

export function grainFor(
  minIso: string,
  maxIso: string,
): { grain: 'day' | 'week' | 'month' | 'quarter' | 'year'; periods: number } | undefined {
  const span = Date.parse(maxIso.replace(' ', 'T')) - Date.parse(minIso.replace(' ', 'T'));
  if (!Number.isFinite(span) || span <= 0) return undefined;
  const days = span / 86_400_000;
  const candidates: Array<{ grain: 'day' | 'week' | 'month' | 'quarter' | 'year'; periods: number }> = [
    { grain: 'day', periods: Math.floor(days) + 1 },
    { grain: 'week', periods: Math.floor(days / 7) + 1 },
    { grain: 'month', periods: Math.floor(span / MONTH_SPAN_MS) + 1 },
    { grain: 'quarter', periods: Math.floor(span / (3 * MONTH_SPAN_MS)) + 1 },
    { grain: 'year', periods: Math.floor(span / (12 * MONTH_SPAN_MS)) + 1 },
  ];
  return candidates.find((candidate) => candidate.periods <= MAX_SERIES_PERIODS && candidate.periods >= 8);
}

/** Start/end pairs of timestamps on one row: opened → closed, created → resolved. */
function durationsOf(columns: readonly MiningColumn[]): DurationMeasure[] {
  const times = columns.filter((column) => column.role === 'time');
  const startWords =
    /^(created|opened|open|start|started|begin|began|submitted|requested|reported|raised|logged|ordered|placed|booked|issued|received|registered|signup|joined|hired|purchased|sys_created)$/;
  const endWords =
    /^(closed|resolved|ended|end|finished|completed|complete|done|processed|approved|shipped|delivered|returned|refunded|cancelled|canceled|solved|fulfilled|paid)$/;
  const role = (name: string) => {
    const words = nameWords(name);
    if (words.some((word) => endWords.test(word))) return 'end';
    if (words.some((word) => startWords.test(word))) return 'start';
    return undefined;
  };
  const starts = times.filter((column) => role(column.name) === 'start');
  const ends = times.filter((column) => role(column.name) === 'end');
  const pairs: DurationMeasure[] = [];
  for (const start of starts.slice(0, 1)) {
    for (const end of ends.slice(0, 2)) {
      const span = Date.parse(String(end.max).replace(' ', 'T')) - Date.parse(String(start.min).replace(' ', 'T'));
      const unit = Number.isFinite(span) && span < 3 * 86_400_000 ? 'hours' : 'days';
      const startWord = nameWords(start.name).find((word) => startWords.test(word)) ?? start.name;
      const endWord = nameWords(end.name).find((word) => endWords.test(word)) ?? end.name;
      pairs.push({ start: start.name, end: end.name, unit, label: `time from ${startWord} to ${endWord}`, endWord });
    }
  }
  return pairs;
}

/** The unit a typical duration reads best in: "4.5 minutes", not "0.0031 days". */
export function unitForSeconds(seconds: number): DurationMeasure['unit'] | undefined {
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  if (seconds < 3_600) return 'minutes';
  if (seconds < 2 * 86_400) return 'hours';
  return 'days';
}

/**
 * Each duration's unit from its median (one statement for all of a table's pairs, on the same rows
 * the profile read); the table's whole time span, which `durationsOf` judges by, says nothing about
 * how long one level attempt or one session lasts. Where the statement gives no answer, the span's
 * unit stays.
 */
async function unitsFromTypicalDurations(
  runner: MiningQueryRunner,
  syntax: SqlSyntax,
  relation: { from: string; name: string; expr(name: string): string },
  durations: DurationMeasure[],
): Promise<void> {
  if (durations.length === 0) return;
  const seconds = (duration: DurationMeasure) =>
    `${syntax.epochSeconds(relation.expr(duration.end))} - ${syntax.epochSeconds(relation.expr(duration.start))}`;
  const medians = durations.map((duration, index) => {
    const value = seconds(duration);
    return `${syntax.median(`CASE WHEN ${value} > 0 THEN ${value} END`)} AS typical_${index}`;
  });
  const rows = await runner.run(`typical durations ${relation.name}`, `SELECT ${medians.join(', ')} FROM ${relation.from}`);
  const row = rows?.[0];
  if (!row) return;
  durations.forEach((duration, index) => {
    const unit = unitForSeconds(num(row[`typical_${index}`]) ?? Number.NaN);
    if (unit) duration.unit = unit;
  });
}

/** The table's main time axis: its first start-like timestamp, else its only timestamp, else a period column. */
function axisOf(columns: readonly MiningColumn[], durations: readonly DurationMeasure[]): TimeAxis | undefined {
  const times = columns.filter((column) => column.role === 'time' && column.min !== undefined && column.max !== undefined);
  const preferred = durations[0] ? times.find((column) => column.name === durations[0]?.start) : undefined;
  const bookkeeping = /(updated|modified|changed|synced|loaded|ingested|etl)/i;
  const time = preferred ?? times.find((column) => !bookkeeping.test(column.name));
  if (time) {
    const grain = grainFor(String(time.min), String(time.max));
    if (grain) return { column: time.name, grain: grain.grain, periods: grain.periods, label: time.label };
  }
  const period = columns.find((column) => column.role === 'period');
  if (period && period.distinct >= 3) return { column: period.name, periods: period.distinct, label: period.label };
  return undefined;
}

export async function profileTable(runner: MiningQueryRunner, syntax: SqlSyntax, input: ProfileInput): Promise<MiningTable | undefined> {
  const { table, description, relation } = input;
  const { sampled } = input;
  const from = relation.from;
  const stats = await runner.run(
    `profile ${table.schema}.${table.name}`,
    `SELECT ${statsSelect(syntax, table, relation.expr).join(',\n  ')}\nFROM ${from}`,
  );
  const row = stats?.[0];
  if (!row) return undefined;
  const rows = num(row.row_count) ?? 0;
  if (rows === 0) return undefined;

  const columns: MiningColumn[] = table.columns.map((column, index) => {
    const kind = kindOf(column.type);
    const nonNull = num(row[alias(index, 'n')]) ?? 0;
    const distinct = Math.min(nonNull, Math.round(num(row[alias(index, 'd')]) ?? 0));
    const min = kind === 'temporal' ? (row[alias(index, 'min')] as string | undefined) : num(row[alias(index, 'min')]);
    const max = kind === 'temporal' ? (row[alias(index, 'max')] as string | undefined) : num(row[alias(index, 'max')]);
    const words = num(row[alias(index, 'words')]);
    const fractional = kind === 'numeric' ? (num(row[alias(index, 'frac')]) ?? 0) > 0 : false;
    const role = roleOf(column, kind, {
      rows,
      nonNull,
      distinct,
      min: typeof min === 'number' ? min : undefined,
      max: typeof max === 'number' ? max : undefined,
      words,
      fractional,
    });
    const calendar = role === 'calendar' ? calendarOf(column.name, kind, min as number, max as number) : undefined;
    return {
      name: column.name,
      type: column.type,
      role,
      nonNull,
      distinct,
      min: min ?? undefined,
      max: max ?? undefined,
      mean: num(row[alias(index, 'mean')]),
      words,
      calendar,
      integer: kind === 'integer' || (kind === 'numeric' && !fractional),
      additive:
        role === 'measure' && typeof min === 'number' && min >= 0 && (ADDITIVE_NAME.test(column.name) || CURRENCY_NAME.test(column.name)),
      label: input.labels.get(column.name) ?? columnLabel(column.name, description),
    };
  });

  // children counted or summed per row are quantities whatever their spread (0–3 orders is a count, not a level)
  for (const item of input.derived) {
    if (item.from !== 'child' || (item.aggregate !== 'count' && item.aggregate !== 'sum')) continue;
    const column = columns.find((candidate) => candidate.name === item.name);
    if (!column) continue;
    // two values (0 or 1 child; none or one amount) say no more than the presence value beside them
    if (column.distinct >= 3) {
      column.role = 'measure';
      column.additive = true;
    } else column.role = 'other';
  }
  const grouped = columns.map((column, index) => ({ column, index })).filter(({ column }) => GROUPED.has(column.role));
  if (grouped.length > 0) {
    const branches = grouped.map(
      ({ column, index }) =>
        `SELECT ${index} AS col, ${syntax.toText(relation.expr(column.name))} AS v, count(*) AS n FROM ${from} WHERE ${relation.expr(column.name)} IS NOT NULL GROUP BY ${relation.expr(column.name)}`,
    );
    const sql = syntax.topRowsPerGroup(`(\n${branches.join('\nUNION ALL\n')}\n)`, 'col, v, n', 'col', 'n DESC, v', TOP_VALUES_KEPT);
    const counted = await runner.run(`top values ${table.schema}.${table.name}`, sql);
    for (const item of counted ?? []) {
      const index = num(item.col);
      const column = index === undefined ? undefined : columns[index];
      const source = index === undefined ? undefined : table.columns[index];
      if (!column || !source) continue;
      column.top ??= [];
      column.top.push({ value: typedValue(item.v, kindOf(source.type)), count: num(item.n) ?? 0 });
    }
    for (const { column } of grouped) {
      if (column.role === 'binary') column.positive = positiveOf(column.top ?? []);
      if (column.role === 'binary' && column.positive === undefined) column.role = 'dimension';
    }
  }

  const durations = durationsOf(columns);
  await unitsFromTypicalDurations(runner, syntax, { ...relation, from, name: `${table.schema}.${table.name}` }, durations);
  const axis = axisOf(columns, durations);
  const axisColumn = axis && columns.find((column) => column.name === axis.column && column.role === 'time');
  const calendarParts: CalendarPart[] = [];
  if (axisColumn) {
    const hours =
      num(
        row[
          alias(
            table.columns.findIndex((column) => column.name === axisColumn.name),
            'hours',
          )
        ],
      ) ?? 0;
    if (hours >= 6) calendarParts.push('hour_of_day');
    calendarParts.push('day_of_week');
    // three months of data are enough to compare months with each other
    const months = Date.parse(String(axisColumn.max).replace(' ', 'T')) - Date.parse(String(axisColumn.min).replace(' ', 'T'));
    if (Number.isFinite(months) && months >= 80 * 86_400_000) calendarParts.push('month_of_year');
  }
  return {
    ref: { schema: table.schema, name: table.name },
    qualified: table.qualified,
    rows,
    columns,
    durations,
    axis,
    calendarParts,
    noun: input.noun,
    ...(sampled ? { sampleRows: MINING_SAMPLE_ROWS } : {}),
    derived: input.derived,
    from,
    expr: relation.expr,
    declared: [],
  };
}
