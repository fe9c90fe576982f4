/**
 * What the analyst knows about the warehouse, built only from lookup replies and its own profile
 * query: column roles, low-cardinality dimensions, how tables reference each other, and which tables
 * are entities, dimension tables or activity logs.
 */
import type { LookedUpTable } from './readers/lookup-reply.js';
import { singular } from './text.js';
import type { ColumnModel, ColumnRole, TableModel } from './types.js';

/** More distinct values than this and a column is not a dimension to group by (the digest inlines ≤ 20 rows). */
export const DIMENSION_MAX_DISTINCT = 20;
/** A referenced table this small is a lookup table: its name-like column labels the referencing rows. */
export const LOOKUP_TABLE_MAX_ROWS = 20;
/** Integer columns named like a position on a scale are grouped by, not averaged. */
const ORDINAL_NAME = /(^|_)(level|stage|step|wave|chapter|world|round|floor|rank|tier|lesson)(_?(number|no|num|index|idx))?$/i;
/** Names that are dimensions in nearly every warehouse, used when cardinalities are unknown. */
const UNPROFILED_DIMENSION_NAME = /(device|platform|channel|source|region|country|category|segment|tier|plan|status|type)$/i;
const TEMPORAL_TYPE = /^(date|time|timestamp|datetime)/i;
/** BOOLEAN, and how MySQL/MariaDB (`tinyint(1)`) and ClickHouse (`Bool`, `Nullable(Bool)`) store it. */
const BOOLEAN_TYPE = /^(bool|boolean|tinyint\(1\)|nullable\(bool\))$/i;
const INTEGER_TYPE = /^(tinyint|smallint|integer|int|int2|int4|int8|bigint|hugeint|utinyint|usmallint|uinteger|ubigint)\b/i;
const IDENTIFIER_NAME = /(^id$|_id$|[a-z]Id$|_key$|^uuid$|_uuid$)/;
/** Label-like column names, best first. */
const LABEL_NAMES = [/(^|_)code$/i, /(^|_)name$/i, /(^|_)title$/i, /(^|_)label$/i, /(^|_)sku$/i];
/** Names of people-like entities: repeat behaviour, retention and first purchases are measured on them. */
const PERSON_NAME =
  /^(customer|user|player|member|account|client|buyer|subscriber|shopper|visitor|patient|student|driver|rider|seller|merchant)s?$/i;
/** Names of the time a row came into being: a record's own start, preferred as a table's main time axis. */
const START_TIME_NAME =
  /(created|opened|open_|start|begin|submitted|requested|reported|raised|logged|issued|ordered|placed|purchased|bought|acquired|signup|signed_up|installed|registered|joined|hired|enrolled|occurred|event|posted|sent|received|booked|activity)/i;
/** Names of the time a record reached an end or a later milestone: never the main axis when a start exists. */
const END_TIME_NAME =
  /(closed|resolved|ended|end_|_end|^end|finish|complete|done|processed|approved|rejected|declined|paid|shipped|deliver|returned|refunded|cancel|expir|due|deadline|until|valid_to|last_|churn|left|terminated)/i;
/** Audit columns: when the row was last touched, not a milestone of the record itself. */
const AUDIT_TIME_NAME = /(updated|modified|changed|edited|synced|loaded|ingested|etl|_sys_|^sys_)/i;
/** A text column repeats each value this many times on average, at least, to be an entity people group by (owner, manager). */
export const ENTITY_MIN_ROWS_PER_VALUE = 2.5;
/** Free text: values of at least this many words on average (descriptions, titles), whose terms can be counted. */
export const FREE_TEXT_MIN_WORDS = 2.5;

export function roleOf(column: { name: string; type: string; category: string }, compositeKey: boolean): ColumnRole {
  const type = column.type.trim();
  if (column.category === 'primary_key' && !compositeKey) return 'key';
  if (BOOLEAN_TYPE.test(type)) return 'flag';
  if (TEMPORAL_TYPE.test(type)) return 'time';
  if (INTEGER_TYPE.test(type) && ORDINAL_NAME.test(column.name)) return 'ordinal';
  if (IDENTIFIER_NAME.test(column.name)) return 'reference';
  if (column.category === 'metric') return 'metric';
  return 'text';
}

export function toTableModel(table: LookedUpTable): TableModel {
  const compositeKey = table.columns.filter((column) => column.category === 'primary_key').length > 1;
  return {
    qualified: table.qualified,
    name: table.qualified.split('.').at(-1) ?? table.qualified,
    rows: table.rows,
    columns: table.columns.map((column) => ({
      name: column.name,
      type: column.type,
      nullable: column.nullable,
      role: roleOf(column, compositeKey),
    })),
  };
}

export function keyColumn(table: TableModel): ColumnModel | undefined {
  return table.columns.find((column) => column.role === 'key');
}

/** A reference from `from.column` to `to`'s key. */
export interface Reference {
  from: TableModel;
  column: ColumnModel;
  to: TableModel;
  toKey: ColumnModel;
}

/** `acquisition_channel_id` points at the table keyed `channel_id`; `player_id` at `players`. */
function pointsAt(column: ColumnModel, table: TableModel, key: ColumnModel): boolean {
  const name = column.name.toLowerCase();
  const keyName = key.name.toLowerCase();
  if (name === keyName || name.endsWith(`_${keyName}`)) return keyName !== 'id' || name === `${singular(table.name.toLowerCase())}_id`;
  if (keyName === 'id')
    return name === `${singular(table.name.toLowerCase())}_id` || name.endsWith(`_${singular(table.name.toLowerCase())}_id`);
  return false;
}

export function findReferences(tables: readonly TableModel[]): Reference[] {
  const references: Reference[] = [];
  for (const from of tables) {
    for (const column of from.columns) {
      if (column.role !== 'reference' && column.role !== 'ordinal') continue;
      const targets = tables
        .filter((to) => to.qualified !== from.qualified)
        .map((to) => ({ to, key: keyColumn(to) }))
        .filter(
          (target): target is { to: TableModel; key: ColumnModel } => target.key !== undefined && pointsAt(column, target.to, target.key),
        );
      // the most specific key name wins (`channel_id` over `id`), then the smallest table name
      targets.sort((left, right) => right.key.name.length - left.key.name.length || (left.to.qualified < right.to.qualified ? -1 : 1));
      const target = targets[0];
      if (target) references.push({ from, column, to: target.to, toKey: target.key });
    }
  }
  return references;
}

export function isPersonTable(table: TableModel): boolean {
  return PERSON_NAME.test(table.name);
}

export function isLookupTable(table: TableModel): boolean {
  return table.rows >= 0 && table.rows <= LOOKUP_TABLE_MAX_ROWS;
}

/** A dimension to group by: low-cardinality text, or a small ordinal scale. */
export function isDimension(column: ColumnModel): boolean {
  if (column.role !== 'text' && column.role !== 'ordinal') return false;
  // not profiled (the profile failed): trust telling names only; the queries cap their rows anyway
  if (column.distinct === undefined) return UNPROFILED_DIMENSION_NAME.test(column.name);
  return column.distinct >= 2 && column.distinct <= DIMENSION_MAX_DISTINCT;
}

/** A text column naming each row of a lookup table (`channel_name`, `promotion_code`). */
export function labelColumns(table: TableModel): ColumnModel[] {
  const candidates = table.columns.filter(
    (column) => column.role === 'text' && (column.distinct === undefined || column.distinct >= Math.min(table.rows, 2)),
  );
  const labels: ColumnModel[] = [];
  for (const pattern of LABEL_NAMES) {
    const found = candidates.find((column) => pattern.test(column.name) && !labels.includes(column));
    if (found) labels.push(found);
  }
  return labels.slice(0, 2);
}

function timeRank(column: ColumnModel): number {
  const start = START_TIME_NAME.test(column.name) ? 4 : 0;
  const end = END_TIME_NAME.test(column.name) ? -4 : 0;
  const audit = AUDIT_TIME_NAME.test(column.name) ? -6 : 0;
  return start + end + audit + (column.nullable ? 0 : 1);
}

/**
 * The table's main time axis, chosen by the role its name gives it: a record's start (created,
 * opened, started, purchased) before neutral dates, before ends and milestones (closed, processed,
 * expiration), before audit columns (updated); a non-null column wins a tie, then column order.
 */
export function mainTime(table: TableModel): ColumnModel | undefined {
  const times = table.columns.filter((column) => column.role === 'time');
  return times
    .map((column, index) => ({ column, index, rank: timeRank(column) }))
    .sort((left, right) => right.rank - left.rank || left.index - right.index)[0]?.column;
}

/**
 * Later time columns of the record (`completed_at`, `closed_at`, `warranty_expiration`): each is a
 * milestone the record reaches, and the time from the main axis to it is a duration. Audit columns
 * (`updated_at`) only count when nothing else ends the record. Ends first, at most `limit`.
 */
export function milestoneTimes(table: TableModel, limit = 2): ColumnModel[] {
  const main = mainTime(table);
  const others = table.columns
    .map((column, index) => ({ column, index }))
    .filter(({ column }) => column.role === 'time' && column !== main);
  const ends = others.filter(({ column }) => !AUDIT_TIME_NAME.test(column.name));
  const chosen = ends.length > 0 ? ends : others;
  return chosen
    .sort(
      (left, right) =>
        Number(END_TIME_NAME.test(right.column.name)) - Number(END_TIME_NAME.test(left.column.name)) || left.index - right.index,
    )
    .slice(0, limit)
    .map(({ column }) => column);
}

/** A text column whose values repeat enough to group by, but too many to list: people, owners, places. */
export function isEntity(column: ColumnModel, rows: number): boolean {
  if (column.role !== 'text' || column.distinct === undefined || column.distinct <= DIMENSION_MAX_DISTINCT) return false;
  if ((column.words ?? 0) >= FREE_TEXT_MIN_WORDS + 1) return false;
  return rows > 0 && column.distinct <= rows / ENTITY_MIN_ROWS_PER_VALUE;
}

/** Free text whose words can be counted (descriptions, titles): many values of several words each. */
export function isFreeText(column: ColumnModel): boolean {
  return (
    column.role === 'text' &&
    column.distinct !== undefined &&
    column.distinct > DIMENSION_MAX_DISTINCT &&
    (column.words ?? 0) >= FREE_TEXT_MIN_WORDS
  );
}

/**
 * After the profile: an identifier-named column (`caller_id`, `owner_id`) is a key only when it
 * behaves like one — it points at a looked-up table, or nearly every value is distinct. A column that
 * points nowhere and repeats its values is a way to group rows (people's names, codes), read as text.
 */
export function refineRoles(tables: readonly TableModel[]): void {
  const pointing = new Set(findReferences(tables).map((reference) => `${reference.from.qualified}.${reference.column.name}`));
  for (const table of tables) {
    for (const column of table.columns) {
      if (column.role !== 'reference' || column.distinct === undefined || pointing.has(`${table.qualified}.${column.name}`)) continue;
      if (table.rows > 0 && column.distinct <= table.rows / 2) column.role = 'text';
    }
  }
}

/** `completed_at` → `completed`; `delivered_date` → `delivered`. */
export function milestoneName(column: Pick<ColumnModel, 'name'>): string {
  return column.name.replace(/_(at|on|date|time|ts)$/i, '');
}
