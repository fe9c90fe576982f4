/**
 * What a warehouse's schema says about how to analyse it, read from the described tables alone (the
 * Level-0 catalog's tables, column categories and sample rows; no queries): which tables are live
 * (copies and empty tables left out), each column's role (key, timestamp with a start or end role,
 * measure, duration, segment, flag, free text), timestamps that bound a record's life, and families of
 * related tables. Pure and deterministic: the same tables give the same facts.
 */
import { inferJoins } from '../../../schema/index.js';
import { isTableCopy } from '../../../warehouse/table-copies.js';
import type { ColumnInfo, TableSchema } from '../../../warehouse/port.js';

/** The largest live tables the generator reads: enough for the main subjects of a 1,500-table warehouse. */
export const MAX_TABLES_CONSIDERED = 40;
/** Below this many rows a table describes things (a code list, a product list) rather than recording activity. */
export const LOOKUP_TABLE_ROWS = 100;
/** A table other tables point at that is this small is a lookup too (products, channels, levels). */
export const REFERENCED_LOOKUP_ROWS = 1_000;
/** A sample value longer than this marks a column as free text (descriptions, comments), not a segment. */
const FREE_TEXT_SAMPLE_CHARS = 60;
/** Joins read per table: the catalog shows three, the generator looks a little further. */
const JOINS_PER_TABLE = 6;

/** Identifiers, including document numbers (`order_no`, `acct_nbr`): splitting or summing them means nothing. */
const IDENTIFIER_NAME = /(^id$|_id$|[a-z]Id$|_key$|^uuid$|_uuid$|^guid$|_guid$|_no$|_nbr$|_num$)/;
const TEMPORAL_TYPE = /^(date|time|timestamp|datetime)/i;
const BOOLEAN_TYPE = /^(bool|boolean)$/i;
const TEXT_TYPE = /^(varchar|text|char|character|string|bpchar|enum|citext|name)/i;
/** Numbers that already are durations: seconds on a session, days to resolve, a latency. */
const DURATION_NAME =
  /(duration|elapsed|latency|wait|_seconds?$|_secs?$|_minutes?$|_mins?$|_hours?$|_hrs?$|_days?$|_ms$|^time_to_|_time_to_)/i;
/** Free text: never a segment, whatever its samples look like. */
const FREE_TEXT_NAME =
  /(^|_)(description|descr|desc|comment|comments|note|notes|text|body|message|summary|title|subject|details?|email|username|url|uri|path|address|phone|ip|hash|token|sku|password)$/i;
/** A name column is a label in a lookup table (channel_name) and an identifier in an activity table. */
const NAME_COLUMN = /(^|_)name$/i;
/** Outcome and status columns: the rates a segment comparison is about. */
const STATUS_NAME = /(^|_)(status|state|stage|outcome|result|resolution|disposition|reason)$/i;

/**
 * Start and end roles of timestamps, by word. An end's rank orders a record's life: a first response
 * comes before resolution, resolution before closing, and a last update after everything.
 */
const START_WORDS = new Set([
  'created',
  'opened',
  'open',
  'reported',
  'raised',
  'submitted',
  'requested',
  'received',
  'registered',
  'signup',
  'signed',
  'installed',
  'joined',
  'started',
  'start',
  'starts',
  'began',
  'begin',
  'ordered',
  'placed',
  'booked',
  'issued',
  'logged',
  'launched',
  'first',
]);
const END_RANKS: ReadonlyMap<string, number> = new Map([
  ['acknowledged', 1],
  ['responded', 1],
  ['response', 1],
  ['assigned', 1],
  ['triaged', 1],
  ['approved', 2],
  ['accepted', 2],
  ['confirmed', 2],
  ['paid', 2],
  ['shipped', 3],
  ['dispatched', 3],
  ['resolved', 4],
  ['solved', 4],
  ['completed', 4],
  ['complete', 4],
  ['finished', 4],
  ['fulfilled', 4],
  ['done', 4],
  ['delivered', 5],
  ['ended', 5],
  ['end', 5],
  ['ends', 5],
  ['expired', 5],
  ['stopped', 5],
  ['terminated', 5],
  ['closed', 6],
  ['cancelled', 6],
  ['canceled', 6],
  ['churned', 6],
  ['last', 7],
  ['updated', 8],
  ['modified', 8],
  ['changed', 8],
]);
/** Ends at or above this rank (last update, last change) say when a row was touched, not when its life ended. */
const BOOKKEEPING_END_RANK = 7;

export type ColumnRole = 'key' | 'time' | 'measure' | 'duration' | 'segment' | 'flag' | 'text' | 'other';
export type TimeRole = 'start' | 'end' | 'other';

export interface ColumnFacts {
  name: string;
  role: ColumnRole;
  /** Status, state, outcome or reason: what a segment comparison counts. */
  status: boolean;
  /** For timestamps: start, end or neither, and the end's place in a record's life. */
  timeRole?: TimeRole;
  endRank?: number;
}

export interface TableFacts {
  schema: TableSchema;
  name: string;
  qualified: string;
  rows: number;
  family: string;
  /** Describes things rather than recording activity (small, or small and pointed at). */
  lookup: boolean;
  columns: ColumnFacts[];
  /** Qualified names of the tables this one points at (inferred joins). */
  references: string[];
  /** How many tables point at this one. */
  referencedBy: number;
}

/** Two timestamps that bound a record's life: in one table, or a parent's start and a child's time. */
export interface TimePair {
  table: TableFacts;
  start: string;
  end: string;
  /** Set when the end lives in a child table (time to the first child row). */
  endTable?: TableFacts;
  /** Other ends of the same start in the same table, in life order (shipped before delivered). */
  alsoEnds: string[];
}

export interface TableFamily {
  name: string;
  tables: TableFacts[];
  rows: number;
}

export interface WarehouseFacts {
  /** Live tables considered, largest first. */
  tables: TableFacts[];
  pairs: TimePair[];
  families: TableFamily[];
  /** Every table and column name of the warehouse, lower-cased: what a keyword may be. */
  realNames: ReadonlySet<string>;
  /** Tables not considered, and why. */
  skipped: { copies: number; empty: number; beyondLimit: number };
}

/** `opened_at` → opened, at; `closedAt` → closed, at. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

function isCopyTable(table: Pick<TableSchema, 'schema' | 'name'>): boolean {
  return isTableCopy(table);
}

function timeRoleOf(name: string): { timeRole: TimeRole; endRank?: number } {
  const words = nameWords(name);
  // an end word wins: `first_response_at` is when a record was first answered, an end
  const endRank = words.reduce<number | undefined>((found, word) => found ?? END_RANKS.get(word), undefined);
  if (endRank !== undefined) return { timeRole: 'end', endRank };
  if (words.some((word) => START_WORDS.has(word))) return { timeRole: 'start' };
  return { timeRole: 'other' };
}

function looksLikeFreeText(table: TableSchema, column: ColumnInfo): boolean {
  return (table.samples ?? []).some((row) => {
    const value = row[column.name];
    return typeof value === 'string' && value.length > FREE_TEXT_SAMPLE_CHARS;
  });
}

function classifyColumn(table: TableSchema, column: ColumnInfo, lookup: boolean): ColumnFacts {
  const { name, type, category } = column;
  const status = STATUS_NAME.test(name);
  if (category === 'primary_key' || IDENTIFIER_NAME.test(name)) return { name, role: 'key', status: false };
  if (category === 'time') {
    // calendar parts stored as numbers (birth_year) are positions on a scale, not moments
    if (TEMPORAL_TYPE.test(type.trim()) || TEXT_TYPE.test(type.trim())) return { name, role: 'time', status: false, ...timeRoleOf(name) };
    return { name, role: 'other', status: false };
  }
  if (category === 'metric') return { name, role: DURATION_NAME.test(name) ? 'duration' : 'measure', status: false };
  if (BOOLEAN_TYPE.test(type.trim())) return { name, role: 'flag', status };
  if (FREE_TEXT_NAME.test(name) || (!lookup && NAME_COLUMN.test(name)) || looksLikeFreeText(table, column))
    return { name, role: 'text', status: false };
  return { name, role: 'segment', status };
}

/** Families: the schemas when live data spans several, else tables sharing their first name word (order, order_items). */
function familiesOf(tables: readonly TableFacts[]): Map<string, string> {
  const activeSchemas = new Set(tables.filter((table) => !table.lookup).map((table) => table.schema.schema));
  if (activeSchemas.size >= 2) return new Map(tables.map((table) => [table.qualified, table.schema.schema]));
  const head = (table: TableFacts): string => singular(nameWords(table.name)[0] ?? table.name);
  const counts = new Map<string, number>();
  for (const table of tables) counts.set(head(table), (counts.get(head(table)) ?? 0) + 1);
  return new Map(tables.map((table) => [table.qualified, (counts.get(head(table)) ?? 0) >= 2 ? head(table) : table.name]));
}

/** `orders` → order, `categories` → category: so `order_items` and `orders` meet. */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

export function mainTime(table: TableFacts): ColumnFacts | undefined {
  const times = table.columns.filter((column) => column.role === 'time');
  return times.find((column) => column.timeRole === 'start') ?? times[0];
}

function pairsOf(tables: readonly TableFacts[], byQualified: ReadonlyMap<string, TableFacts>): TimePair[] {
  const inTable: TimePair[] = [];
  for (const table of tables) {
    if (table.lookup) continue;
    const start = table.columns.find((column) => column.role === 'time' && column.timeRole === 'start');
    const ends = table.columns
      .filter((column) => column.role === 'time' && column.timeRole === 'end')
      .sort((left, right) => (left.endRank ?? 0) - (right.endRank ?? 0));
    if (!start || ends.length === 0) continue;
    const lifeEnds = ends.filter((column) => (column.endRank ?? 0) < BOOKKEEPING_END_RANK);
    const usable = lifeEnds.length > 0 ? lifeEnds : ends;
    const end = usable.at(-1) as ColumnFacts;
    inTable.push({ table, start: start.name, end: end.name, alsoEnds: usable.slice(0, -1).map((column) => column.name) });
  }
  // a parent's start to a child's time: signup to first order, install to first purchase
  const crossTable: TimePair[] = [];
  for (const child of tables) {
    if (child.lookup) continue;
    const childTime = mainTime(child);
    if (!childTime) continue;
    for (const target of child.references) {
      const parent = byQualified.get(target);
      const parentStart = parent?.columns.find((column) => column.role === 'time' && column.timeRole === 'start');
      if (!parent || parent.lookup || !parentStart) continue;
      crossTable.push({ table: parent, start: parentStart.name, end: childTime.name, endTable: child, alsoEnds: [] });
    }
  }
  crossTable.sort((left, right) => (right.endTable?.rows ?? 0) - (left.endTable?.rows ?? 0));
  return [...inTable, ...crossTable];
}

/**
 * How much a table offers an analysis: its size (log), and the columns to split by, to time and to
 * measure. `orders` (statuses, three timestamps, amounts) outranks `order_items` (quantities), although
 * the latter has more rows.
 */
export function richness(table: TableFacts): number {
  const count = (...roles: ColumnRole[]) => table.columns.filter((column) => roles.includes(column.role)).length;
  return (
    Math.log10(Math.max(0, table.rows) + 1) + 0.5 * count('segment', 'flag') + 0.5 * count('time') + 0.3 * count('measure', 'duration')
  );
}

/** Facts of the warehouse behind `tables` (as described by schema discovery or the schema cache). */
/** The live tables the facts describe (the largest MAX_TABLES_CONSIDERED, copies left out): the ones whose samples it reads. */
export function tablesConsidered<T extends TableSchema>(tables: readonly T[]): T[] {
  // unknown row counts (-1) rank after known ones but are kept: a view may not report its size
  return tables
    .filter((table) => !isCopyTable(table) && table.rowCount !== 0)
    .sort((left, right) => right.rowCount - left.rowCount || (left.qualified < right.qualified ? -1 : 1))
    .slice(0, MAX_TABLES_CONSIDERED);
}

export function readWarehouseFacts(tables: readonly TableSchema[]): WarehouseFacts {
  const realNames = new Set<string>();
  for (const table of tables) {
    realNames.add(table.name.toLowerCase());
    for (const column of table.columns) realNames.add(column.name.toLowerCase());
  }
  const copies = tables.filter(isCopyTable);
  const notCopies = tables.filter((table) => !isCopyTable(table));
  const empty = notCopies.filter((table) => table.rowCount === 0).length;
  const considered = tablesConsidered(tables);
  const joins = inferJoins(considered, JOINS_PER_TABLE);
  const inbound = new Map<string, number>();
  for (const targets of joins.values()) for (const target of targets) inbound.set(target, (inbound.get(target) ?? 0) + 1);

  const facts: TableFacts[] = considered.map((schema) => {
    const referencedBy = inbound.get(schema.qualified) ?? 0;
    const lookup =
      schema.rowCount >= 0 && (schema.rowCount < LOOKUP_TABLE_ROWS || (referencedBy > 0 && schema.rowCount < REFERENCED_LOOKUP_ROWS));
    return {
      schema,
      name: schema.name,
      qualified: schema.qualified,
      rows: schema.rowCount,
      family: schema.name,
      lookup,
      columns: schema.columns.map((column) => classifyColumn(schema, column, lookup)),
      references: joins.get(schema.qualified) ?? [],
      referencedBy,
    };
  });
  const familyOf = familiesOf(facts);
  for (const table of facts) table.family = familyOf.get(table.qualified) ?? table.name;

  const byFamily = new Map<string, TableFacts[]>();
  for (const table of facts) byFamily.set(table.family, [...(byFamily.get(table.family) ?? []), table]);
  const families = [...byFamily.entries()]
    .map(([name, members]) => ({
      name,
      tables: [...members].sort((left, right) => richness(right) - richness(left) || (left.qualified < right.qualified ? -1 : 1)),
      rows: members.reduce((sum, table) => sum + Math.max(0, table.rows), 0),
    }))
    .sort(
      (left, right) =>
        richness(right.tables[0] as TableFacts) - richness(left.tables[0] as TableFacts) || (left.name < right.name ? -1 : 1),
    );

  const byQualified = new Map(facts.map((table) => [table.qualified, table]));
  return {
    tables: facts,
    pairs: pairsOf(facts, byQualified),
    families,
    realNames,
    skipped: { copies: copies.length, empty, beyondLimit: notCopies.filter((table) => table.rowCount !== 0).length - considered.length },
  };
}

/**
 * Activity tables to build areas on: round-robin over families (richest first, see {@link richness}),
 * so the areas span the warehouse's subjects rather than the largest tables of one of them.
 */
export function subjectTables(facts: WarehouseFacts, limit: number, accept: (table: TableFacts) => boolean): TableFacts[] {
  const queues = facts.families.map((family) => family.tables.filter((table) => !table.lookup && accept(table)));
  const picked: TableFacts[] = [];
  for (let round = 0; picked.length < limit && queues.some((queue) => queue.length > round); round++) {
    for (const queue of queues) {
      const table = queue[round];
      if (table && picked.length < limit) picked.push(table);
    }
  }
  return picked;
}

export function columnsWithRole(table: TableFacts, ...roles: ColumnRole[]): ColumnFacts[] {
  return table.columns.filter((column) => roles.includes(column.role));
}
