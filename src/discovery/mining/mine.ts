/**
 * Mining a warehouse: profile the tables that matter, plan every finder's statements by priority,
 * run them through the guarded warehouse within the run's budget, correct all the tests made for
 * multiple testing (Benjamini–Hochberg across the run), and keep the findings that pass with enough
 * support — scored by effect, support, significance and relevance to the goal, ranked, and worded.
 *
 * Pure orchestration over ports: the same code runs in one process and inside a fleet's `mine` job.
 */
import type { ClaimDerived, ClaimMetric, MinedFinding } from '../../domain/index.js';
import type { Embedder } from '../../embed/port.js';
import type { TableDescription, TableRef, Warehouse } from '../../warehouse/port.js';
import { type SqlSyntax, sqlSyntaxFor } from '../../warehouse/sql-syntax/index.js';
import { isTableCopy } from '../../warehouse/table-copies.js';
import { benjaminiHochberg } from '../statistics/index.js';
import { type Candidate, type FinderOutput, mergeOutputs } from './candidate.js';
import { mineCorrelations } from './finders/correlations.js';
import { mineDrivers } from './finders/drivers.js';
import { mineOutliers } from './finders/outliers.js';
import { mineSegments } from './finders/segments.js';
import { termMeasures } from './finders/terms.js';
import { mineTimeSeries } from './finders/time-series.js';
import { type Grouping, groupingsOf } from './groupings.js';
import { type MeasureSpec, measureColumns, measuresOf, valueRate } from './measures.js';
import { type MiningTable, columnsWithRole } from './mining-table.js';
import { MINING_BLOCK_SAMPLE_THRESHOLD, MINING_SAMPLE_ROWS, MINING_SAMPLE_THRESHOLD, profileTable } from './profile.js';
import { columnLabel } from './column-labels.js';
import { derivedFor, derivedLabel, findLinks } from './links.js';
import { buildRelation } from '../claims/relation.js';
import { type MiningBudget, type MiningQueryRecord, createMiningQueryRunner } from './query-runner.js';
import { type ColumnRelevance, claimRelevance, columnRelevance, goalAsksVolume, goalNamesValue } from './relevance.js';
import { rankFindings } from './ranking.js';
import type { DeclaredOutcome } from './pack-vocabulary.js';
import { rowNounOf } from './row-noun.js';

export interface MiningSettings {
  /** False-discovery level of the Benjamini–Hochberg correction. @defaultValue 0.05 */
  fdr: number;
  /** Rows a segment needs to be reported. @defaultValue 10 */
  minSupport: number;
  /** Tables profiled and mined per run (the largest relevant ones). @defaultValue 4 */
  maxTables: number;
  /** Findings kept on the run. @defaultValue 120 */
  maxFindings: number;
  budget: MiningBudget;
}

export const DEFAULT_MINING_SETTINGS: MiningSettings = {
  fdr: 0.05,
  minSupport: 10,
  maxTables: 4,
  maxFindings: 120,
  budget: { maxQueries: 200, maxDurationMs: 180_000, queryTimeoutMs: 30_000, maxRows: 2_000 },
};

export interface MiningInput {
  warehouse: Warehouse;
  embedder: Embedder;
  tables: readonly TableDescription[];
  goal: string;
  description: string;
  /** Plural noun of a row per table (`main.incidents` → incidents), from the pack profile. */
  nouns: Readonly<Record<string, string>>;
  /** Words for columns (`main.orders.total_amount` → "revenue"), from the pack's vocabulary. */
  labels: Readonly<Record<string, string>>;
  /** Outcomes the pack declares, resolved against the warehouse's tables. */
  outcomes: readonly DeclaredOutcome[];
  /** Which way a measure is better (`main.sessions.checkout_abandonment` → lower), from the pack. */
  better?: Readonly<Record<string, 'higher' | 'lower'>>;
  settings: MiningSettings;
  signal?: AbortSignal | undefined;
}

/**
 * The direction in which a measure is better, from the pack: a mean by its column (a per-row total of a
 * child's column by that column), a duration by `start->end`; a rate by
 * its column when it is a declared outcome (its rate is what the pack names), a yes/no flag (the rate of
 * `false` is better the other way) or whether the column is filled in.
 */
export function betterDirection(
  metric: ClaimMetric,
  better: Readonly<Record<string, 'higher' | 'lower'>>,
  declared: ReadonlySet<string>,
  derived: readonly ClaimDerived[] = [],
): 'higher' | 'lower' | undefined {
  // a duration by its two ends (`orders.ordered_at->delivered_at`): its end alone may name a completion rate
  if (metric.start_column && metric.end_column) return better[`${metric.table}.${metric.start_column}->${metric.end_column}`];
  if (metric.kind !== 'rate') {
    const column = metric.column;
    // a per-row total of a child column (a customer's total revenue of orders) is better the way the column is
    const child = derived.find((item) => item.name === column && item.from === 'child' && item.aggregate === 'sum');
    if (child?.from === 'child' && child.column) return better[`${child.table}.${child.column}`];
    return column ? better[`${metric.table}.${column}`] : undefined;
  }
  const condition = metric.condition;
  if (!condition) return undefined;
  const key = `${metric.table}.${condition.column}`;
  const stated = better[key];
  const flipped = stated === 'higher' ? 'lower' : 'higher';
  if (!stated) return undefined;
  // whether a column is filled in (completed_at set: the level was completed) reads like a flag
  if (condition.op === 'not_null') return stated;
  if (condition.op === 'is_null') return flipped;
  if (condition.op !== '=') return undefined;
  if (declared.has(key) || condition.value === true) return stated;
  if (condition.value === false) return flipped;
  return undefined;
}

export interface MiningOutcome {
  findings: MinedFinding[];
  tables: string[];
  tested: number;
  significant: number;
  queries: readonly MiningQueryRecord[];
  skippedQueries: number;
  notes: string[];
}

/** Status-like dimensions whose values are outcomes in themselves (resolved, declined, churned). */
const STATUS_NAME = /(^|_)(status|state|stage|outcome|result|resolution|disposition|approval|decision)$/i;
/** Dimensions whose values are compared as outcomes across the other groupings (status-like first). */
const VALUE_OUTCOME_DIMENSIONS = 3;
/** A dimension's values are outcomes when it has this many values at most (a status, a region, a tier). */
const VALUE_OUTCOME_MAX_VALUES = 6;
const VALUE_OUTCOMES_PER_DIMENSION = 4;
/** Groupings followed over time per table. */
const SEGMENT_SERIES_GROUPINGS = 5;

/**
 * Tests about the outcomes the goal names are the run's primary family; the rest are exploratory. Each
 * family is corrected on its own (Benjamini–Hochberg at the run's level in each), as a study corrects its
 * pre-specified outcomes apart from its exploratory ones — otherwise a question asked of 200 rows drowns
 * in the thousands of comparisons nobody asked for.
 */
export const PRIMARY_RELEVANCE = 0.6;

export function familyQValues(pValues: readonly number[], primary: readonly boolean[]): number[] {
  const q = new Array<number>(pValues.length).fill(1);
  for (const family of [true, false]) {
    const indices = pValues.map((_, index) => index).filter((index) => (primary[index] ?? false) === family);
    const adjusted = benjaminiHochberg(indices.map((index) => pValues[index] as number));
    indices.forEach((index, at) => {
      q[index] = adjusted[at] as number;
    });
  }
  return q;
}

/** Goals that ask how things are spread: a dominant value is their answer. */
const DISTRIBUTION_GOAL =
  /\b(distribut\w*|imbalance\w*|concentrat\w*|uneven\w*|share\w*|most common|busiest|peak\w*|dominan\w*|disparit\w*|spread|mix|when)\b/i;
/** How much a plain category's dominant value counts against other findings. */
const PLAIN_SHARE_WEIGHT = 0.4;

function distributional(table: MiningTable, claim: MinedFinding['claim'], asksDistribution: boolean): boolean {
  if (asksDistribution) return true;
  const column = table.columns.find((candidate) => candidate.name === claim.segment?.column);
  return column?.role === 'entity' || column?.role === 'calendar' || claim.segment?.grain !== undefined;
}

/** The derived values a claim names (its metric, condition, filters, segment, comparison, series or x). */
export function derivedUsed(claim: MinedFinding['claim'], derived: readonly ClaimDerived[]): ClaimDerived[] {
  const names = new Set<string>(
    [
      claim.metric.column,
      claim.metric.start_column,
      claim.metric.end_column,
      claim.metric.condition?.column,
      ...claim.metric.filters.map((filter) => filter.column),
      claim.segment?.column,
      claim.comparison?.kind === 'group' ? claim.comparison.group.column : undefined,
      claim.series?.column,
      claim.x?.column,
    ].filter((name): name is string => name !== undefined),
  );
  return derived.filter((item) => names.has(item.name));
}

function chooseTables(tables: readonly TableDescription[], maxTables: number): TableDescription[] {
  return tables
    .filter((table) => table.rowCount !== 0 && !isTableCopy(table) && table.columns.length >= 2)
    .sort((left, right) => right.rowCount - left.rowCount || (left.qualified < right.qualified ? -1 : 1))
    .slice(0, maxTables);
}

function relevanceOf(relevance: ColumnRelevance, table: MiningTable, columns: readonly string[]): number {
  return Math.max(0, ...columns.map((column) => relevance.get(`${table.qualified}.${column}`) ?? 0));
}

function measureRelevance(relevance: ColumnRelevance, table: MiningTable, measure: MeasureSpec): number {
  if (measure.kind === 'duration')
    return (
      relevance.get(`${table.qualified}.${measure.start}->${measure.end}`) ?? relevanceOf(relevance, table, [measure.start, measure.end])
    );
  return relevanceOf(relevance, table, measureColumns(measure));
}

/**
 * Dimensions of a few text values whose values are outcomes in themselves — a status (cancelled), a
 * region one category concentrates in: each value's rate is compared across the other groupings.
 * Status-like names first, then the closest to the goal, then the fewest values.
 */
function valueOutcomes(table: MiningTable, relevance: ColumnRelevance): MeasureSpec[] {
  const statusCap = 8;
  return columnsWithRole(table, 'dimension')
    .filter((column) => {
      const cap = STATUS_NAME.test(column.name) ? statusCap : VALUE_OUTCOME_MAX_VALUES;
      return column.distinct >= 3 && column.distinct <= cap && (column.top?.length ?? 0) >= 3 && typeof column.top?.[0]?.value === 'string';
    })
    .map((column) => ({
      column,
      priority: (STATUS_NAME.test(column.name) ? 2 : 0) + (relevance.get(`${table.qualified}.${column.name}`) ?? 0) - column.distinct / 100,
    }))
    .sort((left, right) => right.priority - left.priority || (left.column.name < right.column.name ? -1 : 1))
    .slice(0, VALUE_OUTCOME_DIMENSIONS)
    .flatMap(({ column }) => (column.top ?? []).slice(0, VALUE_OUTCOMES_PER_DIMENSION).map((item) => valueRate(column, item.value)));
}

async function mineTable(
  context: { syntax: SqlSyntax; runner: ReturnType<typeof createMiningQueryRunner>; settings: MiningSettings; relevance: ColumnRelevance },
  table: MiningTable,
): Promise<FinderOutput> {
  const { syntax, runner, settings, relevance } = context;
  const shared = { syntax, runner, table, minSupport: settings.minSupport };
  const measures = measuresOf(table).sort(
    (left, right) => measureRelevance(relevance, table, right) - measureRelevance(relevance, table, left),
  );
  const groupings: Grouping[] = groupingsOf(table).sort(
    (left, right) =>
      relevanceOf(relevance, table, [right.column]) - relevanceOf(relevance, table, [left.column]) ||
      left.distinct - right.distinct ||
      (left.column < right.column ? -1 : 1),
  );
  const terms: MeasureSpec[] = [];
  const derivedNames = new Set(table.derived.map((item) => item.name));
  // words of the table's own free text (a parent's label is a name, not text to count words in)
  for (const text of columnsWithRole(table, 'text')
    .filter((column) => !derivedNames.has(column.name))
    .slice(0, 2))
    terms.push(...(await termMeasures(runner, table, text)));
  const outcomes = [...measures, ...valueOutcomes(table, relevance), ...terms];

  const outputs: FinderOutput[] = [];
  // whole-table views first: they are few and carry the broadest findings
  const seriesGroupings = groupings
    .filter((grouping) => !grouping.extracted && grouping.distinct >= 2 && grouping.distinct <= 12)
    // categories of a few values first: one segment's own trend or burst stands out against a handful
    .sort((left, right) => Number(right.distinct >= 3 && right.distinct <= 8) - Number(left.distinct >= 3 && left.distinct <= 8))
    .slice(0, SEGMENT_SERIES_GROUPINGS);
  const periodic = table.seriesFrom === undefined ? shared : { ...shared, table: { ...table, from: table.seriesFrom } };
  outputs.push(await mineTimeSeries(periodic, measures, seriesGroupings));
  outputs.push(await mineDrivers(periodic, measures, seriesGroupings));
  outputs.push(await mineCorrelations(shared, measures));
  outputs.push(await mineOutliers(shared, measures));
  // a grouping and a measure read from the same related table say one thing twice (has an order / number of orders)
  const sourceOf = (name: string) => table.derived.find((item) => item.name === name)?.table;
  for (const grouping of groupings) {
    const groupSource = sourceOf(grouping.column);
    const own = outcomes.filter(
      (measure) =>
        !measureColumns(measure).includes(grouping.column) &&
        (groupSource === undefined || !measureColumns(measure).some((column) => sourceOf(column) === groupSource)),
    );
    outputs.push(await mineSegments(shared, grouping, own));
  }
  const merged = mergeOutputs(outputs);
  merged.testColumns = merged.testColumns.map((columns) => columns.map((column) => `${table.qualified}.${column}`));
  return merged;
}

/** True when a sampled table is read block by block: far past the sample size, on an engine with a block sample. */
function blockSampled(syntax: SqlSyntax, table: { rowCount: number }): boolean {
  return syntax.blockSampledTable !== undefined && table.rowCount > MINING_BLOCK_SAMPLE_THRESHOLD;
}

/** The FROM item a sampled table is mined through: a block sample far past the sample size, else a row sample. */
export function miningSample(syntax: SqlSyntax, table: TableRef & { rowCount: number }): string {
  if (blockSampled(syntax, table) && syntax.blockSampledTable) return syntax.blockSampledTable(table, table.rowCount, MINING_SAMPLE_ROWS);
  return syntax.sampledTable(table, table.rowCount, MINING_SAMPLE_ROWS);
}

export async function mineWarehouse(input: MiningInput): Promise<MiningOutcome> {
  const { warehouse, settings } = input;
  const syntax = sqlSyntaxFor(warehouse.dialect);
  const runner = createMiningQueryRunner(warehouse, settings.budget, { signal: input.signal });
  const notes: string[] = [];

  const profiled: MiningTable[] = [];
  const links = findLinks(input.tables);
  for (const table of chooseTables(input.tables, settings.maxTables)) {
    const noun = input.nouns[table.qualified] ?? input.nouns[table.name] ?? rowNounOf(table, input.description) ?? 'rows';
    const sampled = table.rowCount > MINING_SAMPLE_THRESHOLD;
    const declared = input.outcomes.filter((outcome) => outcome.table === table.qualified);
    const derived = [...derivedFor(table, links), ...declared.map((outcome) => outcome.derived)];
    const relation = buildRelation(syntax, table.qualified, derived, input.tables, sampled ? miningSample(syntax, table) : undefined);
    const labelOf = (tableName: string, column: string) => input.labels[`${tableName}.${column}`] ?? columnLabel(column, input.description);
    const labels = new Map(derived.map((item) => [item.name, derivedLabel(item, labelOf)]));
    for (const outcome of declared) labels.set(outcome.derived.name, outcome.measure.label);
    for (const column of table.columns) {
      const declared = input.labels[`${table.qualified}.${column.name}`];
      if (declared) labels.set(column.name, declared);
    }
    const widened: TableDescription = {
      ...table,
      columns: [
        ...table.columns,
        ...derived.map((item) => ({ name: item.name, type: relation.typeOf(item.name), nullable: true, category: 'dimension' as const })),
      ],
    };
    const mined = await profileTable(runner, syntax, {
      table: widened,
      derived,
      relation: { from: relation.from, expr: (name: string) => relation.column(name, 'column') },
      sampled,
      description: input.description,
      noun,
      labels,
    });
    if (mined) {
      mined.declared = declared.map((outcome) => outcome.measure);
      if (sampled && blockSampled(syntax, table))
        mined.seriesFrom = buildRelation(
          syntax,
          table.qualified,
          derived,
          input.tables,
          syntax.sampledTable(table, table.rowCount, MINING_SAMPLE_ROWS),
        ).from;
      profiled.push(mined);
    }
    if (mined?.sampleRows)
      notes.push(
        `${table.qualified}: mined on a ${blockSampled(syntax, table) ? 'block' : 'uniform'} sample of about ${MINING_SAMPLE_ROWS.toLocaleString('en-US')} of its ${table.rowCount.toLocaleString('en-US')} rows (findings are approximate; their recounts are exact)`,
      );
  }
  const relevance = await columnRelevance(input.embedder, input.goal, input.description, profiled, input.signal);

  const outputs: FinderOutput[] = [];
  for (const table of profiled) outputs.push(await mineTable({ syntax, runner, settings, relevance }, table));
  const all = mergeOutputs(outputs);
  // a test's columns are qualified by mineTable (`schema.table.column`)
  const primary = all.testColumns.map((keys) => Math.max(0, ...keys.map((key) => relevance.get(key) ?? 0)) >= PRIMARY_RELEVANCE);
  const q = familyQValues(all.pValues, primary);
  const tables = new Map(profiled.map((table) => [table.qualified, table]));
  const asksDistribution = DISTRIBUTION_GOAL.test(input.goal);
  const asksVolume = goalAsksVolume(input.goal);
  const declaredNames = new Set(input.outcomes.map((outcome) => `${outcome.table}.${outcome.derived.name}`));
  const significant: Array<Candidate & { q: number; relevance: number }> = [];
  for (const candidate of all.candidates) {
    const qValue = q[candidate.test] ?? 1;
    if (qValue > settings.fdr) continue;
    const table = tables.get(candidate.claim.metric.table);
    if (!table) continue;
    const goalValue = candidate.claim.segment && goalNamesValue(input.goal, candidate.claim.segment.value) ? 0.5 : 0;
    const columnScore = (column: string) => relevanceOf(relevance, table, [column]);
    const durationScore = candidate.claim.metric.start_column
      ? (relevance.get(`${table.qualified}.${candidate.claim.metric.start_column}->${candidate.claim.metric.end_column}`) ?? 0)
      : 0;
    // a dominant value is news for entities (who holds the work), calendars (when it happens) or a goal about distribution
    if (
      candidate.claim.kind === 'share' &&
      candidate.claim.metric.kind === 'count' &&
      !distributional(table, candidate.claim, asksDistribution)
    )
      candidate.strength *= PLAIN_SHARE_WEIGHT;
    const derived = derivedUsed(candidate.claim, table.derived);
    if (derived.length > 0) candidate.claim = { ...candidate.claim, derived };
    const better = betterDirection(candidate.claim.metric, input.better ?? {}, declaredNames, derived);
    if (better) candidate.claim = { ...candidate.claim, metric: { ...candidate.claim.metric, better } };
    significant.push({
      ...candidate,
      q: qValue,
      relevance: Math.min(1, Math.max(claimRelevance(columnScore, candidate.claim, asksVolume), durationScore) + goalValue),
    });
  }
  const skipped = runner.skipped;
  if (skipped > 0)
    notes.push(
      `the mining budget (${settings.budget.maxQueries} statements, ${Math.round(settings.budget.maxDurationMs / 1000)} s) ran out: ${skipped} statements were not run`,
    );
  const failed = runner.records.filter((record) => record.error !== undefined);
  if (failed.length > 0) notes.push(`${failed.length} mining statements failed (first: ${failed[0]?.label}: ${failed[0]?.error})`);
  return {
    findings: rankFindings(significant, tables, settings.maxFindings),
    tables: profiled.map((table) => table.qualified),
    tested: all.pValues.length,
    significant: significant.length,
    queries: runner.records,
    skippedQueries: skipped,
    notes,
  };
}
