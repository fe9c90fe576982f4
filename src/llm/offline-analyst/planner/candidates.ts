/**
 * The exploration plan: every profiling query worth running on the tables looked up so far, each with
 * the area it serves, a purpose naming measure and segment, and a priority. Pure and deterministic:
 * the same notes always give the same plan, so each turn can rebuild it and take the next item.
 */
import { childOutcomeQuery } from '../sql/child-query.js';
import { furthestPositionQuery, retentionQuery, timeToFirstQuery, weeklyArrivalsQuery } from '../sql/cohort-queries.js';
import type { SqlDialect } from '../sql/dialect.js';
import { ordinalCliffQuery, segmentQuery } from '../sql/segment-query.js';
import { monthlyQuery, segmentTrendQuery } from '../sql/trend-queries.js';
import { sampledDraft } from '../sql/sampling.js';
import { findReferences, isLookupTable, isPersonTable, mainTime, type Reference } from '../schema-model.js';
import { compareText, humanize, mentionsStem, shortHash, wordsOf } from '../text.js';
import type { AreaInfo, PlannedQuery, TableModel } from '../types.js';
import { keywordWeights, rankAreas } from './area-match.js';
import { timeSourceOf, type Draft } from './draft.js';
import { patternDrafts } from './patterns.js';
import { NEGATIVE_WORDS, childExistenceMeasure, isOutcomeColumn, moneyColumns, rowMeasures, type Measure } from './measures.js';
import { DIMENSION_LIMIT_FOR_LONG_SCALES, segmentsOf, type Segment } from './segments.js';

/** Parent flags that are steps of a funnel: a parent that reached one and has no child abandoned. */
const FUNNEL_FLAG = /(cart|checkout|basket|payment|pay|signup|register|trial|start|view|click|add)/i;
/** Child tables whose rows are purchases: their first row after the start is a conversion. */
const PURCHASE_NAME = /(purchase|payment|transaction|order|subscription|iap|sale|checkout)/i;
/** Equal segments keep the order segmentsOf gave them (most telling first). */
const SEGMENT_RANK_STEP = 0.01;
/** Tables whose rows say someone was active on a day: what retention counts. */
const ACTIVITY_NAME = /(session|activit|event|login|visit|heartbeat|app_open|daily)/i;
/** Priority lost by queries on descriptive tables (products, levels) of their own rows. */
const DESCRIPTIVE_TABLE_PENALTY = 1.5;
/** Priority lost by a split of a table that has no measure of its own (counts and shares only). */
const NO_MEASURE_PENALTY = 1.5;
/** Segments per parent for the costlier follow-ups (child outcomes, retention, trends). */
const FOLLOW_UP_SEGMENTS = 3;

/**
 * Averages of a metric the segment's own table also holds (a purchase's price by product) only
 * restate the segment's attribute: they are left out of that split.
 */
function measuresFor(measures: readonly Measure[], segment: Segment, table: TableModel): Measure[] {
  // the table's own columns split its own measures: an average by department is the point
  if (segment.source.qualified === table.qualified) return [...measures];
  const attributes = new Set(segment.source.columns.filter((candidate) => candidate.role === 'metric').map((candidate) => candidate.name));
  return measures.filter((measure) => measure.kind === 'rate' || !measure.metric || !attributes.has(measure.metric));
}

function measureSummary(measures: readonly Measure[]): string {
  const names = measures
    .filter((measure) => measure.kind !== 'share' && measure.kind !== 'total')
    .map((measure) => humanize(measure.alias));
  if (names.length === 0) return 'row counts and shares';
  return names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
}

function segmentDrafts(
  dialect: SqlDialect,
  table: TableModel,
  tables: readonly TableModel[],
  references: readonly Reference[],
  goal: string,
): Draft[] {
  if (isLookupTable(table) || table.rows === 0) return [];
  const drafts: Draft[] = [];
  const allMeasures = rowMeasures(dialect, table);
  const segments = segmentsOf(dialect, table, tables, goal);
  const negative = allMeasures.some((measure) => measure.negative);
  // outcome shares (cancelled, refunded orders) per segment are the most direct evidence a table holds
  const outcomes = table.columns.some(isOutcomeColumn);
  const money = allMeasures.some((measure) => measure.kind === 'total');
  // a table others point at that points nowhere describes things (products): its facts live in the referencing tables
  const descriptive =
    references.some((reference) => reference.to.qualified === table.qualified) &&
    !references.some((reference) => reference.from.qualified === table.qualified);
  // rows of a negative event (refunds) matter relative to what they undo, which the child queries measure
  const penalty = (descriptive ? DESCRIPTIVE_TABLE_PENALTY : 0) + (NEGATIVE_WORDS.test(table.name) ? DESCRIPTIVE_TABLE_PENALTY : 0);
  const tableWords = wordsOf(table.name);
  // every split counts rows and shares (how rows pile up), with the table's own measures when it has any
  for (const [rank, segment] of segments
    .filter((candidate) => !candidate.ordinal || candidate.distinct <= DIMENSION_LIMIT_FOR_LONG_SCALES)
    .entries()) {
    drafts.push({
      kind: 'segment',
      table,
      subject: `${table.qualified}:${segment.alias}`,
      sql: segmentQuery(dialect, table, segment, measuresFor(allMeasures, segment, table)),
      measureText: measureSummary(measuresFor(allMeasures, segment, table)),
      segmentText: humanize(segment.alias),
      words: [
        ...tableWords,
        ...segment.words,
        ...measuresFor(allMeasures, segment, table).flatMap((measure) => measure.words),
        'segment',
        'share',
        'distribution',
      ],
      // a split with nothing to measure but row counts says less than one with the table's own measures
      priority:
        3 +
        segment.interest +
        (negative ? 1.5 : 0) +
        (outcomes ? 1 : 0) +
        (money ? 0.5 : 0) -
        (allMeasures.length === 0 ? NO_MEASURE_PENALTY : 0) -
        penalty -
        rank * SEGMENT_RANK_STEP,
    });
  }
  if (allMeasures.length > 0) {
    const rates = allMeasures.filter((measure) => measure.kind === 'rate');
    for (const segment of segments.filter((candidate) => candidate.ordinal && candidate.distinct > DIMENSION_LIMIT_FOR_LONG_SCALES)) {
      if (rates.length === 0) continue;
      drafts.push({
        kind: 'cliff',
        table,
        subject: `${table.qualified}:${segment.alias}`,
        sql: ordinalCliffQuery(dialect, table, segment, rates),
        measureText: `${measureSummary(rates)} per ${humanize(segment.alias)} (worst positions first, with the mean over all positions)`,
        segmentText: humanize(segment.alias),
        words: [...tableWords, ...segment.words, ...rates.flatMap((measure) => measure.words), 'progression', 'drop', 'difficulty'],
        priority: 7.5,
      });
    }
  }
  const time = timeSourceOf(dialect, table, references);
  if (time && table.rows >= 100) {
    drafts.push({
      kind: 'monthly',
      table,
      subject: `${table.qualified}:month`,
      sql: monthlyQuery(dialect, table, time, allMeasures),
      measureText: `monthly ${humanize(table.name)}${allMeasures.length > 0 ? ` with ${measureSummary(allMeasures)}` : ''}`,
      segmentText: 'month',
      words: [...tableWords, ...time.words, ...allMeasures.flatMap((measure) => measure.words), 'trend', 'month', 'change', 'spike'],
      priority: 3.5 + (negative ? 1 : 0) + (money ? 0.5 : 0),
    });
  }
  return drafts;
}

function referenceDrafts(
  dialect: SqlDialect,
  reference: Reference,
  tables: readonly TableModel[],
  references: readonly Reference[],
): Draft[] {
  const parent = reference.to;
  const child = reference.from;
  if (isLookupTable(parent) || isLookupTable(child) || child.rows === 0 || parent.rows === 0) return [];
  const drafts: Draft[] = [];
  const parentSegments = segmentsOf(dialect, parent, tables)
    .filter((segment) => !segment.ordinal)
    .slice(0, FOLLOW_UP_SEGMENTS);
  const person = isPersonTable(parent);
  const childWords = wordsOf(child.name);
  const parentWords = wordsOf(parent.name);
  const childMoney = moneyColumns(child);
  const funnelFlags = parent.columns.filter((candidate) => candidate.role === 'flag' && FUNNEL_FLAG.test(candidate.name));

  for (const [rank, segment] of parentSegments.entries()) {
    const base = { table: parent, segmentText: humanize(segment.alias), subject: `${parent.qualified}:${segment.alias}` };
    if (!person || funnelFlags.length > 0) {
      drafts.push({
        ...base,
        kind: 'funnel',
        sql: childOutcomeQuery(dialect, reference, segment, { funnelFlags, childMetrics: childMoney.slice(0, 1), valueMode: false }),
        measureText: `${humanize(parent.name)} with ${humanize(child.name)}, ${humanize(child.name)} per ${humanize(parent.name)}${funnelFlags.length > 0 ? `, abandonment after ${funnelFlags.map((flag) => humanize(flag.name)).join(' / ')}` : ''}`,
        words: [
          ...parentWords,
          ...childWords,
          ...segment.words,
          ...funnelFlags.flatMap((flag) => wordsOf(flag.name)),
          ...(funnelFlags.length > 0 ? ['funnel', 'abandon', 'conversion'] : ['engagement']),
        ],
        priority: (funnelFlags.length > 0 ? 6 : NEGATIVE_WORDS.test(child.name) ? 5 : 4) + segment.interest - rank * SEGMENT_RANK_STEP,
      });
    }
    if (person) {
      drafts.push({
        ...base,
        kind: 'value',
        sql: childOutcomeQuery(dialect, reference, segment, { funnelFlags: [], childMetrics: childMoney.slice(0, 1), valueMode: true }),
        measureText: `repeat ${humanize(child.name)} and ${
          childMoney.length > 0
            ? `${childMoney
                .slice(0, 1)
                .map((metric) => humanize(metric.name))
                .join(', ')} revenue per ${humanize(parent.name)} (also within 90 days: cohort value)`
            : `${humanize(child.name)} per ${humanize(parent.name)}`
        }`,
        words: [
          ...parentWords,
          ...childWords,
          ...segment.words,
          'repeat',
          'retention',
          'cohort',
          ...(childMoney.length > 0 ? ['revenue', ...childMoney.slice(0, 1).flatMap((metric) => wordsOf(metric.name))] : []),
        ],
        priority: 5 + segment.interest + (childMoney.length > 0 ? 0.5 : 0) - rank * SEGMENT_RANK_STEP,
      });
    }
  }

  const parentTime = mainTime(parent);
  const childTime = mainTime(child);
  if (person && parentTime && childTime && (childMoney.length > 0 || PURCHASE_NAME.test(child.name))) {
    drafts.push({
      kind: 'first',
      table: parent,
      subject: `${parent.qualified}:first:${child.qualified}`,
      sql: timeToFirstQuery(dialect, reference),
      measureText: `days from ${humanize(parentTime.name)} to the first ${humanize(child.name)}`,
      segmentText: 'days since start',
      words: [...parentWords, ...childWords, ...wordsOf(parentTime.name), 'first', 'conversion', 'payer'],
      priority: 6.5,
    });
  }

  const ordinal = child.columns.find((candidate) => candidate.role === 'ordinal' && (candidate.distinct ?? 0) > 2);
  if (person && ordinal) {
    drafts.push({
      kind: 'furthest',
      table: parent,
      subject: `${parent.qualified}:furthest`,
      sql: furthestPositionQuery(dialect, reference, ordinal),
      measureText: `furthest ${humanize(ordinal.name)} reached per ${humanize(parent.name)}`,
      segmentText: humanize(ordinal.name),
      words: [...parentWords, ...childWords, ...wordsOf(ordinal.name), 'progression', 'drop', 'churn'],
      priority: 7,
    });
  }

  if (NEGATIVE_WORDS.test(child.name)) {
    const time = timeSourceOf(dialect, parent, references);
    const rate = childExistenceMeasure(dialect, reference);
    if (time) {
      for (const [rank, segment] of parentSegments.slice(0, 2).entries()) {
        drafts.push({
          kind: 'segment-trend',
          table: parent,
          subject: `${parent.qualified}:${segment.alias}`,
          sql: segmentTrendQuery(dialect, parent, segment, time, rate),
          measureText: `${humanize(rate.alias)} by month: first vs last 3 months and monthly change`,
          segmentText: humanize(segment.alias),
          words: [...parentWords, ...childWords, ...segment.words, 'trend', 'month', 'rising'],
          priority: 5 + segment.interest - rank * SEGMENT_RANK_STEP,
        });
      }
    }
  }
  return drafts;
}

function personDrafts(dialect: SqlDialect, people: TableModel, tables: readonly TableModel[], references: readonly Reference[]): Draft[] {
  const start = mainTime(people);
  if (!start || !isPersonTable(people) || people.rows < 100) return [];
  const drafts: Draft[] = [];
  const optional = people.columns.filter((candidate) => candidate.role === 'reference' && candidate.nullable);
  drafts.push({
    kind: 'weekly',
    table: people,
    subject: `${people.qualified}:week`,
    sql: weeklyArrivalsQuery(dialect, people, optional),
    measureText: `new ${humanize(people.name)} per week (${humanize(start.name)}), busiest weeks${optional.length > 0 ? ` with ${optional.map((reference) => humanize(reference.name)).join(', ')}` : ''}`,
    segmentText: 'week',
    words: [
      ...wordsOf(people.name),
      ...wordsOf(start.name),
      ...optional.flatMap((reference) => wordsOf(reference.name)),
      'growth',
      'signup',
      'acquisition',
      'spike',
      'week',
    ],
    priority: 6,
  });
  // activity: a dated table referencing the people, named like activity (sessions, daily activity) before the largest other
  const activity = references
    .filter(
      (reference) =>
        reference.to.qualified === people.qualified && mainTime(reference.from) !== undefined && !isLookupTable(reference.from),
    )
    .sort(
      (left, right) =>
        Number(ACTIVITY_NAME.test(right.from.name)) - Number(ACTIVITY_NAME.test(left.from.name)) ||
        right.from.rows - left.from.rows ||
        compareText(left.from.qualified, right.from.qualified),
    )[0];
  if (activity) {
    for (const [rank, segment] of segmentsOf(dialect, people, tables)
      .filter((candidate) => !candidate.ordinal)
      .slice(0, FOLLOW_UP_SEGMENTS)
      .entries()) {
      drafts.push({
        kind: 'retention',
        table: people,
        subject: `${people.qualified}:${segment.alias}`,
        sql: retentionQuery(dialect, activity, segment),
        measureText: `D1, D7 and week-5 (days 28-34) retention of ${humanize(people.name)} from ${humanize(activity.from.name)}`,
        segmentText: humanize(segment.alias),
        words: [
          ...wordsOf(people.name),
          ...wordsOf(activity.from.name),
          ...segment.words,
          'retention',
          'churn',
          'cohort',
          'return',
          'active',
        ],
        priority: 5.5 + segment.interest - rank * SEGMENT_RANK_STEP,
      });
    }
  }
  return drafts;
}

/** Each repeat of the same kind of query on the same table costs this much priority: variety finds more. */
const REPEAT_PENALTY = 1.5;
/** Each further query on the same table split the same way costs this much. */
const SUBJECT_PENALTY = 1;

/** Greedy order: best priority first, lowered for every query of the same kind and table already taken. */
function diversify(queries: readonly PlannedQuery[]): PlannedQuery[] {
  const left = [...queries];
  const ordered: PlannedQuery[] = [];
  const taken = new Map<string, number>();
  const subjects = new Map<string, number>();
  while (left.length > 0) {
    let bestIndex = 0;
    let bestScore = -Infinity;
    left.forEach((query, index) => {
      const score = query.priority - REPEAT_PENALTY * (taken.get(query.family) ?? 0) - SUBJECT_PENALTY * (subjects.get(query.subject) ?? 0);
      const best = left[bestIndex] as PlannedQuery;
      if (score > bestScore || (score === bestScore && compareText(query.key, best.key) < 0)) {
        bestScore = score;
        bestIndex = index;
      }
    });
    const [chosen] = left.splice(bestIndex, 1) as [PlannedQuery];
    taken.set(chosen.family, (taken.get(chosen.family) ?? 0) + 1);
    subjects.set(chosen.subject, (subjects.get(chosen.subject) ?? 0) + 1);
    ordered.push(chosen);
  }
  return ordered;
}

/**
 * `area: measure by segment (table) [keywords: …]`. The area keywords the query is about are named
 * verbatim: the engine's step picker lets a step into an area on an exact keyword.
 */
function purposeOf(area: AreaInfo, draft: Draft, sampled?: string): string {
  const by = draft.segmentText === 'month' || draft.segmentText === 'week' ? '' : ` by ${draft.segmentText}`;
  const text = draft.words.join(' ');
  const keywords = area.keywords.filter((keyword) => mentionsStem(text, keyword));
  return `${area.id}: ${draft.measureText}${by} (${draft.table.qualified}${sampled ? `, ${sampled}` : ''})${keywords.length > 0 ? ` [keywords: ${keywords.join(', ')}]` : ''}`;
}

/** Every planned query, in execution order: areas take turns, each area's best query first. */
export function planQueries(dialect: SqlDialect, tables: readonly TableModel[], areas: readonly AreaInfo[], goal = ''): PlannedQuery[] {
  const references = findReferences(tables);
  const drafts: Draft[] = [
    ...tables.flatMap((table) => segmentDrafts(dialect, table, tables, references, goal)),
    ...tables.flatMap((table) => patternDrafts(dialect, table, tables, references, goal)),
    ...references.flatMap((reference) => referenceDrafts(dialect, reference, tables, references)),
    ...tables.flatMap((table) => personDrafts(dialect, table, tables, references)),
  ];
  const fallbackArea: AreaInfo = { id: 'general', name: 'General', description: '', keywords: [] };
  const byArea = new Map<string, PlannedQuery[]>();
  const seen = new Set<string>();
  const weights = keywordWeights(
    areas,
    drafts.map((draft) => draft.words.join(' ')),
  );
  for (const draft of drafts) {
    const key = shortHash(draft.sql);
    if (seen.has(key)) continue;
    seen.add(key);
    const best = rankAreas(areas, draft.words, weights)[0];
    const area = best && best.score > 0 ? best.area : (areas[0] ?? fallbackArea);
    const priority = draft.priority - (best && best.score > 0 ? 0 : 2);
    // a large table is read through a sample, and the step says so (sql/sampling.ts)
    const { sql, sample } = sampledDraft(dialect, draft);
    const planned: PlannedQuery = {
      key,
      area: area.id,
      purpose: purposeOf(area, draft, sample?.text),
      thinking: `${area.name}: measuring ${draft.measureText}${draft.segmentText === 'month' || draft.segmentText === 'week' ? '' : ` split by ${draft.segmentText}`}${sample ? ` ${sample.text}` : ''} to find segments or periods that stand out.`,
      sql,
      priority,
      family: `${draft.kind}:${draft.table.qualified}`,
      subject: draft.subject,
    };
    const list = byArea.get(area.id) ?? [];
    list.push(planned);
    byArea.set(area.id, list);
  }
  const queues = [...areas.map((area) => area.id), fallbackArea.id]
    .filter((id, index, all) => all.indexOf(id) === index)
    .map((id) => diversify(byArea.get(id) ?? []));
  const ordered: PlannedQuery[] = [];
  for (let round = 0; queues.some((queue) => queue.length > round); round++) {
    for (const queue of queues) {
      const next = queue[round];
      if (next) ordered.push(next);
    }
  }
  return ordered;
}
