/**
 * Exploration: one JSON action per turn. Reads the catalog, looks up the most relevant tables,
 * profiles their columns in one query, then runs the plan (planner/candidates.ts) query by query,
 * and finishes when the plan is spent. Its position comes from the budget footer, its knowledge from
 * the latest result and its notes (the engine's notes block, or older runs' notes in its own actions).
 * The plan is fixed once the tables are profiled, so its progress is the step count since it started.
 */
import type { LlmRequest } from '../port.js';
import { decodeMemo, emptyMemo, encodeMemo, type AnalystMemo } from './memo.js';
import { planQueries } from './planner/candidates.js';
import { catalogOmitsTables, readAreas, readCatalog, readDialect, readGoal } from './readers/catalog.js';
import {
  readLatestResult,
  readOwnActions,
  readPosition,
  readSearchHits,
  readShownRows,
  type ExplorationPosition,
} from './readers/exploration-turns.js';
import { readLookupReply } from './readers/lookup-reply.js';
import { isTableCopy } from '../../warehouse/table-copies.js';
import { refineRoles, toTableModel } from './schema-model.js';
import { sqlDialect } from './sql/dialect.js';
import {
  PROFILE_VALUES_MAX,
  PROFILE_VALUE_SEPARATOR,
  estimateDistinct,
  profileKey,
  profileQuery,
  sampleRowsKey,
} from './sql/profile-query.js';
import { compareText } from './text.js';
import type { AreaInfo, CatalogEntry, PlannedQuery, TableModel } from './types.js';

/** Tables per lookup_schema call (the engine's cap). */
export const LOOKUP_TABLES_PER_CALL = 10;
/** Lookup calls the analyst spends on the catalog at most: the plan needs the central tables, not all. */
export const MAX_LOOKUP_ROUNDS = 2;
/** Purpose prefix of the profile query, how the analyst recognises its result. */
export const PROFILE_PURPOSE = 'profile: distinct values of the text and ordinal columns of the looked-up tables';
/** Catalogs at least this long get one search_tables call before planning. */
const LARGE_CATALOG_TABLES = 40;

interface ExplorationView {
  catalog: CatalogEntry[];
  areas: AreaInfo[];
  position: ExplorationPosition;
  memo: AnalystMemo;
  searchHits: string[];
  largeCatalog: boolean;
  /** How long the encoded notes may be: a reply must fit the request's output limit, as a model's must. */
  noteChars: number;
  /** The notes as the prompt shows them now: new notes are sent only when they differ. */
  shownNotes: string | undefined;
}

/** The engine's notes block (explore-step.ts `renderNotes`). */
const NOTES_BLOCK = /^Your notes \(saved with step \d+[^)]*\):\n(\[notes:[0-9a-f]+\])/m;

/** The notes the engine shows, from the opening of the conversation. */
function readNotesBlock(messages: LlmRequest['messages']): string | undefined {
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const match = NOTES_BLOCK.exec(message.content);
    if (match) return match[1];
  }
  return undefined;
}

/** Hex notes take about one token per two characters; the rest of the reply (thinking, SQL) gets 1,500 tokens. */
function noteCharsFor(maxOutputTokens: number): number {
  return Math.max(1_000, (maxOutputTokens - 1_500) * 2);
}

function countOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

function applyProfile(memo: AnalystMemo, row: Record<string, unknown>): void {
  for (const table of memo.tables) {
    // a sampled table's counts are scaled up to the table (see estimateDistinct)
    const sampleRows = countOf(row[sampleRowsKey(table)]);
    for (const column of table.columns) {
      const distinct = countOf(row[profileKey(table, column.name, 'n')]);
      if (distinct !== undefined)
        column.distinct =
          sampleRows === undefined || distinct <= PROFILE_VALUES_MAX ? distinct : estimateDistinct(distinct, sampleRows, table.rows);
      const words = row[profileKey(table, column.name, 'w')];
      if (typeof words === 'number' || (typeof words === 'string' && words.trim() !== '' && Number.isFinite(Number(words))))
        column.words = Math.round(Number(words) * 100) / 100;
      const values = row[profileKey(table, column.name, 'v')];
      if (typeof values === 'string' && !values.endsWith('…') && column.distinct !== undefined && column.distinct <= PROFILE_VALUES_MAX) {
        column.values = values.split(PROFILE_VALUE_SEPARATOR);
      }
    }
  }
  refineRoles(memo.tables);
}

/** Notes from the newest own action that carries them, updated with the latest result. */
function readView(request: LlmRequest): ExplorationView {
  const system = request.system ?? '';
  const actions = readOwnActions(request.messages);
  const shownNotes = readNotesBlock(request.messages);
  let memo = (shownNotes === undefined ? null : decodeMemo(shownNotes)) ?? emptyMemo();
  for (let index = actions.length - 1; index >= 0 && shownNotes === undefined; index--) {
    const thinking = actions[index]?.thinking;
    const decoded = typeof thinking === 'string' ? decodeMemo(thinking) : null;
    if (decoded) {
      memo = decoded;
      break;
    }
  }
  const latest = readLatestResult(request.messages);
  const lastAction = actions.at(-1);
  let searchHits: string[] = [];
  if (latest?.action === 'lookup_schema') {
    const known = new Set(memo.tables.map((table) => table.qualified));
    for (const table of readLookupReply(latest.body)) if (!known.has(table.qualified)) memo.tables.push(toTableModel(table));
  } else if (latest?.action === 'query' && lastAction?.query_purpose === PROFILE_PURPOSE) {
    memo.profiled = true;
    const row = readShownRows(latest.body)[0];
    if (!latest.failed && row) applyProfile(memo, row);
  } else if (latest?.action === 'search_tables') {
    searchHits = readSearchHits(latest.body);
  }
  return {
    catalog: readCatalog(system),
    areas: readAreas(system),
    position: readPosition(request.messages),
    memo,
    searchHits,
    largeCatalog: catalogOmitsTables(system) || readCatalog(system).length >= LARGE_CATALOG_TABLES,
    noteChars: noteCharsFor(request.maxOutputTokens),
    shownNotes,
  };
}

/** Archive, backup, staging and snapshot copies (`orders_2019`, `customers_bkp`, `staging.*`) only repeat the live tables. */
function isCopyTable(qualified: string): boolean {
  const [schema = '', name = qualified] = qualified.includes('.')
    ? [qualified.slice(0, qualified.lastIndexOf('.')), qualified.slice(qualified.lastIndexOf('.') + 1)]
    : ['', qualified];
  return isTableCopy({ schema, name });
}

/** Tables most worth a lookup: area keyword hints, joins in and out, then size. */
function rankForLookup(catalog: readonly CatalogEntry[]): CatalogEntry[] {
  const inbound = new Map<string, number>();
  for (const entry of catalog) for (const target of entry.joins) inbound.set(target, (inbound.get(target) ?? 0) + 1);
  const score = (entry: CatalogEntry): number => {
    const bare = entry.qualified.split('.').at(-1) ?? entry.qualified;
    const joinsIn = (inbound.get(bare) ?? 0) + (inbound.get(entry.qualified) ?? 0);
    return entry.keywords.length * 3 + entry.joins.length + joinsIn + Math.log10(Math.max(1, entry.rows));
  };
  return catalog
    .filter((entry) => entry.rows !== 0 && !isCopyTable(entry.qualified))
    .map((entry) => ({ entry, score: score(entry) }))
    .sort((left, right) => right.score - left.score || compareText(left.entry.qualified, right.entry.qualified))
    .map(({ entry }) => entry);
}

function lookupRounds(memo: AnalystMemo): number {
  return memo.done.filter((key) => key.startsWith('lookup:')).length;
}

/** A cautious token count of a reply: hex notes at two characters a token, the rest at three. */
function replyTokens(reply: string): number {
  const notes = /\[notes:[0-9a-f]*\]/.exec(reply)?.[0].length ?? 0;
  return Math.ceil(notes / 2 + (reply.length - notes) / 3);
}

/** The `notes` of an action: the memo, when it says something the notes shown in the prompt do not. */
function notesFor(view: ExplorationView, memo: AnalystMemo): { notes?: string } {
  const encoded = encodeMemo(memo, view.noteChars);
  return encoded === view.shownNotes ? {} : { notes: encoded };
}

function lookupAction(view: ExplorationView, tables: string[], why: string): string {
  const memo: AnalystMemo = { ...view.memo, done: [...view.memo.done, `lookup:${lookupRounds(view.memo) + 1}`] };
  return JSON.stringify({ thinking: why, lookup_schema: tables, ...notesFor(view, memo) });
}

function doneAction(view: ExplorationView, ran: readonly PlannedQuery[], tables: readonly TableModel[]): string {
  const ranQueries = ran.length;
  const covered = view.areas.map((area) => `${area.id}: ${ran.filter((query) => query.area === area.id).length}`).join(', ');
  const summary =
    tables.length === 0
      ? 'No table could be looked up, so nothing was measured.'
      : `Ran ${ranQueries} profiling queries over ${tables.length} tables (${tables.map((table) => table.qualified).join(', ')}). Queries per area: ${covered}.`;
  return JSON.stringify({ done: true, summary });
}

export function explore(request: LlmRequest): string {
  const view = readView(request);
  const { memo, position } = view;
  const known = new Set(memo.tables.map((table) => table.qualified));

  if (view.searchHits.length > 0 && position.lookupsLeft > 0) {
    const fresh = view.searchHits.filter((table) => !known.has(table) && !isCopyTable(table)).slice(0, LOOKUP_TABLES_PER_CALL);
    if (fresh.length > 0)
      return lookupAction(
        view,
        fresh,
        'The search found tables the catalog did not make obvious; reading their columns before querying them.',
      );
  }
  const candidates = rankForLookup(view.catalog).filter((entry) => !known.has(entry.qualified));
  const rounds = lookupRounds(memo);
  const wantsMore = rounds === 0 || (rounds < MAX_LOOKUP_ROUNDS && candidates.some((entry) => entry.keywords.length > 0));
  if (!memo.profiled && candidates.length > 0 && wantsMore && position.lookupsLeft > 0) {
    const batch = candidates.slice(0, LOOKUP_TABLES_PER_CALL).map((entry) => entry.qualified);
    return lookupAction(
      view,
      batch,
      `Reading columns and sample rows of the ${batch.length} most relevant tables (area keyword hints, joins, size) before writing any SQL.`,
    );
  }
  if (!memo.profiled && !memo.searched && view.largeCatalog && position.searchesLeft > 0 && view.areas.length > 0) {
    const area = view.areas[0] as AreaInfo;
    const next: AnalystMemo = { ...memo, searched: true };
    return JSON.stringify({
      thinking: 'The catalog is large; searching for the tables behind the first area before profiling.',
      search_tables: `${area.name} ${area.keywords.join(' ')}`.trim(),
      ...notesFor(view, next),
    });
  }
  const dialect = sqlDialect(readDialect(request.system ?? ''));
  if (!memo.profiled && memo.tables.length > 0) {
    const next: AnalystMemo = { ...memo, done: [...memo.done, 'profile'] };
    const profileAction = (tables: readonly TableModel[]) =>
      JSON.stringify({
        thinking:
          'Counting distinct values per text column to know which columns are dimensions worth grouping by, and which status values exist.',
        query_purpose: PROFILE_PURPOSE,
        query: profileQuery(dialect, tables),
        ...notesFor(view, next),
      });
    // one query profiles every table looked up, unless the reply would not fit the output limit: then the first ones
    let profiled: readonly TableModel[] = memo.tables;
    let action = profileAction(profiled);
    while (replyTokens(action) > request.maxOutputTokens * 0.9 && profiled.length > 1) {
      profiled = profiled.slice(0, -1);
      action = profileAction(profiled);
    }
    return action;
  }
  // the plan is fixed once the tables are profiled: step planStart + k runs its query k
  const seen = new Set<string>();
  const plan = planQueries(dialect, memo.tables, view.areas, readGoal(request.system ?? '')).filter((query) => {
    const key = `${query.area}#${query.key}`;
    if (seen.has(key) || memo.done.includes(key)) return false;
    seen.add(key);
    return true;
  });
  const thisStep = position.stepsUsed + 1;
  const taken = memo.planStart === undefined ? 0 : Math.max(0, thisStep - memo.planStart);
  const next = plan[taken];
  if (!next || position.stepsUsed >= position.maxSteps) return doneAction(view, plan.slice(0, taken), memo.tables);
  const updated: AnalystMemo = memo.planStart === undefined ? { ...memo, planStart: thisStep } : memo;
  return JSON.stringify({ thinking: next.thinking, query_purpose: next.purpose, query: next.sql, ...notesFor(view, updated) });
}
