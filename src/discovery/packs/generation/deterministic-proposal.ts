/**
 * The proposal without a model: each base-pack archetype becomes an area when the schema supports it
 * — segments (categorical columns, flags and statuses of the activity tables), durations (timestamps
 * that bound a record's life, by role: opened/created/started before closed/resolved/completed),
 * trends (the activity tables' main timestamps), concentration (category-like columns and lookup
 * tables), anomalies (measures, statuses, timestamps) — named and keyed with the warehouse's own table
 * and column names. Words in the user's describe/goal text raise the areas they ask about.
 */
import { formatRowCount } from '../../../schema/index.js';
import {
  columnsWithRole,
  mainTime,
  subjectTables,
  type ColumnFacts,
  type TableFacts,
  type TimePair,
  type WarehouseFacts,
} from './warehouse-facts.js';
import {
  MAX_AREA_KEYWORDS,
  MAX_CONTEXT_LINES,
  MAX_DESCRIPTION_CHARS,
  MAX_FOCUS_LINES,
  MAX_GENERATED_AREAS,
  MAX_NAME_CHARS,
  MIN_AREA_KEYWORDS,
  MIN_GENERATED_AREAS,
  cleanLine,
  uniqueNames,
  type PackProposal,
  type ProposedArea,
  type SuggestedProfile,
} from './proposal.js';
import { PackGenerationError } from './errors.js';

/** Activity tables an area is built on. */
const SUBJECTS_PER_AREA = 4;
/** Priority added to an area the user's describe/goal text asks about. */
const GOAL_PRIORITY_BONUS = 3;
/** Columns named like a category or an owner: what concentration and mix are measured over. */
const CATEGORY_NAME =
  /(category|categories|type|kind|class|group|segment|tier|plan|channel|source|region|country|location|site|store|assignee|owner|team|department|vendor|supplier|brand|platform|device|product|service|queue|priority|level)/i;
/** Labels of single things (`product_name`, `campaign_title`): listed after real categories. */
const NAME_LIKE = /(^|_)(name|title|label)$/i;
/** Tables whose rows are something going wrong: their volume and its spikes are anomalies in themselves. */
const NEGATIVE_TABLE =
  /(refund|return|cancel|error|fail|incident|alert|exception|reject|bounce|chargeback|dispute|complaint|defect|outage)/i;

/** Words in describe/goal text that ask for one archetype. */
const GOAL_CUES: Readonly<Record<string, RegExp>> = {
  segments: /\b(differ\w*|segment\w*|driver\w*|drive[sn]?|why|compare\w*|groups?)\b/i,
  durations:
    /\b(how long|duration\w*|time to|resolution|resolv\w*|delay\w*|slow\w*|backlog|throughput|sla|wait\w*|lead time|turnaround|cycle time)\b/i,
  trends: /\b(trend\w*|over time|grow\w*|declin\w*|chang\w*|increas\w*|decreas\w*|monthly|weekly|season\w*)\b/i,
  concentration: /\b(concentrat\w*|share|mix|top|dominat\w*|biggest|largest|most)\b/i,
  anomalies: /\b(anomal\w*|outlier\w*|unusual|spike\w*|errors?|quality|missing|duplicat\w*|fraud)\b/i,
};

export interface ArchetypeBase {
  id: string;
  name: string;
  priority: number;
}

export interface DeterministicOptions {
  /** The base pack's areas: which archetypes exist, their names and priorities. */
  archetypes: readonly ArchetypeBase[];
  describe?: string | undefined;
  goal?: string | undefined;
  /** Pack name; derived from the main tables when left out. */
  name?: string | undefined;
}

/** Round-robin over per-table lists, so a list of names spans tables instead of exhausting the first. */
function interleave<T>(lists: ReadonlyArray<readonly T[]>): T[] {
  const out: T[] = [];
  for (let index = 0; lists.some((list) => list.length > index); index++)
    for (const list of lists) if (index < list.length) out.push(list[index] as T);
  return out;
}

function names(columns: readonly ColumnFacts[]): string[] {
  return columns.map((column) => column.name);
}

function listText(items: readonly string[], max = 4): string {
  const shown = items.slice(0, max);
  const rest = items.length - shown.length;
  const joined = shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : joined;
}

function tableLabel(table: TableFacts): string {
  return `${table.qualified} (${formatRowCount(table.rows)} rows)`;
}

/** Segment columns that are not themselves the outcome. */
function segmentColumns(table: TableFacts): ColumnFacts[] {
  return table.columns.filter((column) => column.role === 'segment' && !column.status);
}

function outcomeColumns(table: TableFacts): ColumnFacts[] {
  return table.columns.filter((column) => (column.role === 'segment' && column.status) || column.role === 'flag');
}

/** The area's own names, topped up from `fallback` (its tables) only to reach the minimum. */
function withKeywords(keywords: string[], fallback: readonly string[]): string[] {
  const own = uniqueNames(keywords, MAX_AREA_KEYWORDS);
  return own.length >= MIN_AREA_KEYWORDS ? own : uniqueNames([...own, ...fallback], MIN_AREA_KEYWORDS);
}

type Draft = Omit<ProposedArea, 'archetype' | 'id' | 'priority'>;

function segmentsDraft(facts: WarehouseFacts): Draft | undefined {
  const subjects = subjectTables(facts, SUBJECTS_PER_AREA, (table) => segmentColumns(table).length + outcomeColumns(table).length > 0);
  if (subjects.length === 0) return undefined;
  const segments = interleave(subjects.map((table) => names(segmentColumns(table))));
  const outcomes = interleave(subjects.map((table) => names(outcomeColumns(table))));
  const measures = interleave(subjects.map((table) => names(columnsWithRole(table, 'measure', 'duration'))));
  const keywords = withKeywords(
    [...segments.slice(0, 5), ...outcomes.slice(0, 3), ...measures.slice(0, 2)],
    subjects.map((table) => table.name),
  );
  const comparedOn = [
    ...outcomes.slice(0, 2).map((name) => `the shares of ${name}`),
    ...measures.slice(0, 2).map((name) => `the average ${name}`),
  ];
  const by = uniqueNames(segments.length > 0 ? segments : outcomes, 4);
  return {
    name: `Segment Differences by ${listText(by, 2)}`,
    description: `Which values of ${listText(by)} (${listText(
      subjects.map((table) => table.name),
      3,
    )}) differ clearly from the rest in ${comparedOn.length > 0 ? listText(comparedOn, 3) : 'row counts and rates'}, and which column drives a difference most.`,
    keywords,
    focus: subjects.map((table) => {
      const split = names(segmentColumns(table));
      const outcome = names(outcomeColumns(table));
      const measure = names(columnsWithRole(table, 'measure', 'duration'));
      const parts = [
        split.length > 0 ? `split by ${listText(split, 5)}` : '',
        outcome.length > 0 ? `compare the shares of ${listText(outcome, 4)}` : '',
        measure.length > 0 ? `compare the averages of ${listText(measure, 3)}` : '',
      ].filter(Boolean);
      return `${tableLabel(table)}: ${parts.join('; ')}.`;
    }),
  };
}

function pairText(pair: TimePair): string {
  if (pair.endTable) return `${pair.table.name}.${pair.start} to the first ${pair.endTable.name}.${pair.end}`;
  const via = pair.alsoEnds.length > 0 ? ` (via ${pair.alsoEnds.join(', ')})` : '';
  return `${pair.table.name}.${pair.start} to ${pair.table.name}.${pair.end}${via}`;
}

function durationsDraft(facts: WarehouseFacts): Draft | undefined {
  const pairs = facts.pairs.slice(0, 3);
  const measured = subjectTables(facts, SUBJECTS_PER_AREA, (table) => columnsWithRole(table, 'duration').length > 0);
  if (pairs.length === 0 && measured.length === 0) return undefined;
  const pairTables = [...new Set(pairs.map((pair) => pair.table))];
  const keywords = withKeywords(
    [
      ...pairs.flatMap((pair) => [pair.start, ...pair.alsoEnds, pair.end]),
      ...pairs.flatMap((pair) => [pair.table.name, ...(pair.endTable ? [pair.endTable.name] : [])]),
      ...measured.flatMap((table) => names(columnsWithRole(table, 'duration'))),
      ...interleave(pairTables.map((table) => names(segmentColumns(table)))).slice(0, 3),
    ],
    measured.map((table) => table.name),
  );
  const main = pairs[0];
  const durationNames = measured.flatMap((table) => names(columnsWithRole(table, 'duration')).map((name) => `${table.name}.${name}`));
  const splitBy = uniqueNames(interleave([...pairTables, ...measured].map((table) => names(segmentColumns(table)))), 3);
  const spans = [...pairs.map(pairText), ...durationNames];
  return {
    name: main ? `Durations and Throughput from ${main.start} to ${main.end}` : `Durations and Throughput of ${listText(durationNames, 2)}`,
    description: `Time from ${listText(spans, 3)}, how it differs by ${splitBy.length > 0 ? listText(splitBy, 3) : 'segment'}, records still without an end, and how many are completed per week or month.`,
    keywords,
    focus: [
      ...pairs.map((pair) =>
        pair.endTable
          ? `${pair.table.qualified}.${pair.start} → first ${pair.endTable.qualified}.${pair.end}: time from a ${pair.table.name} row's start to its first ${pair.endTable.name} row.`
          : `${pair.table.qualified}: ${[pair.start, ...pair.alsoEnds, pair.end].join(' → ')}; rows without ${pair.end} are still open.`,
      ),
      ...measured.map(
        (table) =>
          `${table.qualified}: ${listText(names(columnsWithRole(table, 'duration')), 3)} ${columnsWithRole(table, 'duration').length > 1 ? 'are durations' : 'is a duration'} already; compare by ${listText(names(segmentColumns(table)), 3) || 'segment'}.`,
      ),
    ],
  };
}

function trendsDraft(facts: WarehouseFacts): Draft | undefined {
  const subjects = subjectTables(facts, SUBJECTS_PER_AREA, (table) => mainTime(table) !== undefined);
  if (subjects.length === 0) return undefined;
  const times = subjects.map((table) => (mainTime(table) as ColumnFacts).name);
  const otherTimes = interleave(subjects.map((table) => names(columnsWithRole(table, 'time'))));
  const measures = interleave(subjects.map((table) => names(columnsWithRole(table, 'measure'))));
  const keywords = withKeywords([...times, ...subjects.map((table) => table.name), ...measures.slice(0, 2)], otherTimes);
  return {
    name: `Trends and Change Points in ${listText(
      subjects.map((table) => table.name),
      2,
    )}`,
    description: `Weekly and monthly volume of ${listText(
      subjects.map((table) => table.name),
      3,
    )} (by ${listText(uniqueNames(times, 4), 3)}), the largest rises and falls, and the dates where ${measures.length > 0 ? `a count, rate or ${measures[0]}` : 'a count or rate'} changed level.`,
    keywords,
    focus: subjects.map((table) => {
      const measure = names(columnsWithRole(table, 'measure'));
      const split = names(segmentColumns(table));
      return `${tableLabel(table)} by ${(mainTime(table) as ColumnFacts).name}: rows per week and month${measure.length > 0 ? `, totals of ${listText(measure, 2)}` : ''}${split.length > 0 ? `; which ${listText(split, 2)} value drives a change` : ''}.`;
    }),
  };
}

function concentrationDraft(facts: WarehouseFacts): Draft | undefined {
  const subjects = subjectTables(facts, SUBJECTS_PER_AREA, () => true);
  const lookups = facts.tables.filter((table) => table.lookup && table.referencedBy > 0);
  const dimensions = interleave([...subjects, ...lookups].map((table) => segmentColumns(table).map((column) => ({ table, column }))));
  // a label (`product_name`) names single things; a category column groups them
  const strength = ({ column }: { column: ColumnFacts }): number =>
    CATEGORY_NAME.test(column.name) && !NAME_LIKE.test(column.name) ? 2 : NAME_LIKE.test(column.name) ? 0 : 1;
  const chosen: typeof dimensions = [];
  for (const entry of [...dimensions].sort((left, right) => strength(right) - strength(left))) {
    if (chosen.length < 6 && !chosen.some(({ column }) => column.name === entry.column.name)) chosen.push(entry);
  }
  if (chosen.length === 0) return undefined;
  const measure = interleave(subjects.map((table) => names(columnsWithRole(table, 'measure'))))[0];
  const keywords = withKeywords(
    [...chosen.map(({ column }) => column.name), ...lookups.slice(0, 3).map((table) => table.name), ...(measure ? [measure] : [])],
    subjects.map((table) => table.name),
  );
  const dimensionNames = uniqueNames(
    chosen.map(({ column }) => column.name),
    6,
  );
  return {
    name: `Concentration and Mix of ${listText(dimensionNames, 2)}`,
    description: `Which values of ${listText(dimensionNames)} hold most of the rows${measure ? ` or most of ${measure}` : ''}, how the mix differs between groups, and where it shifts over time.`,
    keywords,
    focus: [
      ...chosen.map(({ table, column }) => `${table.qualified}.${column.name}: share of rows held by the top value and by the top three.`),
      ...(lookups.length > 0
        ? [
            `Lookup tables that name things the activity tables point at: ${listText(
              lookups.map((table) => table.qualified),
              4,
            )}; join them to count by their categories.`,
          ]
        : []),
    ],
  };
}

function anomaliesDraft(facts: WarehouseFacts): Draft | undefined {
  const subjects = subjectTables(facts, SUBJECTS_PER_AREA, () => true);
  if (subjects.length === 0) return undefined;
  const measures = interleave(subjects.map((table) => names(columnsWithRole(table, 'measure', 'duration'))));
  const statuses = interleave(subjects.map((table) => names(table.columns.filter((column) => column.status))));
  const negative = facts.tables.filter((table) => !table.lookup && NEGATIVE_TABLE.test(table.name));
  const times = subjects.flatMap((table) => {
    const time = mainTime(table);
    return time ? [time.name] : [];
  });
  const keywords = withKeywords(
    [...measures.slice(0, 4), ...statuses.slice(0, 2), ...negative.slice(0, 2).map((table) => table.name), ...times.slice(0, 1)],
    [...subjects.map((table) => table.name), ...times.slice(1)],
  );
  const pairs = facts.pairs.filter((pair) => !pair.endTable).slice(0, 2);
  return {
    name: `Anomalies and Outliers in ${listText(
      subjects.map((table) => table.name),
      2,
    )}`,
    description: `Days, values and records far outside the usual range in ${listText(
      subjects.map((table) => table.name),
      3,
    )}: spikes and gaps over time${measures.length > 0 ? `, outliers of ${listText(measures, 2)}` : ''}${pairs.length > 0 ? ', ends before starts' : ''}, and missing or duplicate keys.`,
    keywords,
    focus: [
      ...(measures.length > 0
        ? [`Outliers and impossible values (negative, far above the 75th percentile): ${listText(measures, 5)}.`]
        : []),
      ...(times.length > 0
        ? [`Daily counts by ${listText(uniqueNames(times, 4), 4)}: days far above or below the median day, and days with no rows.`]
        : []),
      ...pairs.map((pair) => `${pair.table.qualified}: rows whose ${pair.end} is earlier than ${pair.start}.`),
      ...(negative.length > 0
        ? [
            `Tables of things going wrong: ${listText(
              negative.map((table) => table.qualified),
              3,
            )}; their spikes are anomalies in themselves.`,
          ]
        : []),
      `Missing and duplicate keys in ${listText(
        subjects.map((table) => table.qualified),
        3,
      )}.`,
    ],
  };
}

const DRAFTERS: Readonly<Record<string, (facts: WarehouseFacts) => Draft | undefined>> = {
  segments: segmentsDraft,
  durations: durationsDraft,
  trends: trendsDraft,
  concentration: concentrationDraft,
  anomalies: anomaliesDraft,
};

function contextLines(facts: WarehouseFacts): string[] {
  // the team's own words are in the base context, which every exploration prompt starts with
  const lines: string[] = [];
  const families = facts.families.filter((family) => family.tables.some((table) => !table.lookup)).slice(0, 6);
  if (families.length > 0)
    lines.push(
      `Main tables, by family: ${families
        .map(
          (family) =>
            `${family.name}: ${family.tables
              .filter((table) => !table.lookup)
              .slice(0, 3)
              .map(tableLabel)
              .join(', ')}`,
        )
        .join('; ')}.`,
    );
  const lookups = facts.tables.filter((table) => table.lookup);
  if (lookups.length > 0)
    lines.push(
      `Small tables that name and classify things: ${listText(
        lookups.map((table) => table.qualified),
        6,
      )}.`,
    );
  if (facts.pairs.length > 0) lines.push(`Timestamps that bound a record's life: ${facts.pairs.slice(0, 4).map(pairText).join('; ')}.`);
  const segments = uniqueNames(interleave(facts.tables.filter((table) => !table.lookup).map((table) => names(segmentColumns(table)))), 10);
  if (segments.length > 0) lines.push(`Columns worth splitting by: ${segments.join(', ')}.`);
  const measures = uniqueNames(interleave(facts.tables.map((table) => names(columnsWithRole(table, 'measure', 'duration')))), 10);
  if (measures.length > 0) lines.push(`Measures: ${measures.join(', ')}.`);
  const { copies, empty, beyondLimit } = facts.skipped;
  if (copies + empty + beyondLimit > 0)
    lines.push(
      `Left out of these notes: ${[copies > 0 ? `${copies} copies (archive, backup, staging)` : '', empty > 0 ? `${empty} empty tables` : '', beyondLimit > 0 ? `${beyondLimit} smaller tables` : ''].filter(Boolean).join(', ')}; the catalog still lists them.`,
    );
  return lines.slice(0, MAX_CONTEXT_LINES).map((line) => cleanLine(line, 1_000));
}

/** The proposal for `facts`; fails with a clear reason when the schema supports fewer than three areas. */
export function proposeFromFacts(facts: WarehouseFacts, options: DeterministicOptions): PackProposal {
  const askedFor = `${options.describe ?? ''} ${options.goal ?? ''}`;
  const areas: ProposedArea[] = [];
  for (const archetype of options.archetypes) {
    const draft = DRAFTERS[archetype.id]?.(facts);
    if (!draft || draft.keywords.length < MIN_AREA_KEYWORDS) continue;
    const bonus = GOAL_CUES[archetype.id]?.test(askedFor) ? GOAL_PRIORITY_BONUS : 0;
    areas.push({
      archetype: archetype.id,
      id: archetype.id,
      name: cleanLine(draft.name, MAX_NAME_CHARS),
      description: cleanLine(draft.description, MAX_DESCRIPTION_CHARS),
      keywords: draft.keywords,
      priority: archetype.priority + bonus,
      focus: draft.focus.slice(0, MAX_FOCUS_LINES).map((line) => cleanLine(line, 600)),
    });
  }
  if (areas.length < MIN_GENERATED_AREAS) {
    throw new PackGenerationError(
      `the warehouse's schema supports only ${areas.length} analysis area(s) (${areas.map((area) => area.id).join(', ') || 'none'}); a pack needs at least ${MIN_GENERATED_AREAS}: the live tables need categorical columns, timestamps or measures (${facts.tables.length} live tables were read)`,
    );
  }
  const mainNames = subjectTables(facts, 3, () => true).map((table) => table.name);
  return {
    name: cleanLine(options.name ?? `Generated for ${listText(mainNames, 3)}`, MAX_NAME_CHARS),
    description: cleanLine(
      `Generated from the schema of ${facts.tables.length} live tables (main: ${listText(mainNames, 3)}): ${areas.map((area) => area.name).join('; ')}.`,
      MAX_DESCRIPTION_CHARS,
    ),
    // the order a run analyses them in (priority, then id), as the pack loader will sort them
    areas: areas.sort((left, right) => right.priority - left.priority || (left.id < right.id ? -1 : 1)).slice(0, MAX_GENERATED_AREAS),
    context: contextLines(facts),
    profile: suggestProfile(facts, options),
  };
}

/** Profile values read from the schema (main tables, measures, life timestamps) plus the team's own words. */
export function suggestProfile(facts: WarehouseFacts, options: Pick<DeterministicOptions, 'describe' | 'goal'>): SuggestedProfile {
  const subjects = subjectTables(facts, 3, () => true);
  const mainNames = subjects.map((table) => table.name);
  const measures = uniqueNames(interleave(subjects.map((table) => names(columnsWithRole(table, 'measure', 'duration')))), 6);
  const timeColumns = uniqueNames(
    facts.pairs.flatMap((pair) => [pair.start, pair.end]).concat(subjects.flatMap((table) => names(columnsWithRole(table, 'time')))),
    6,
  );
  return {
    basic_info: {
      dataset_name: mainNames.join(', '),
      ...(options.describe ? { description: options.describe } : {}),
      main_entities: mainNames,
      ...(options.goal ? { goal: options.goal } : {}),
    },
    measures: { key_measures: measures, time_columns: timeColumns },
  };
}
