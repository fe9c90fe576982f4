/**
 * Relevance to the project's goal: how close each column is to what the team wants to learn, measured
 * with the run's embedder (the one `search_tables` uses) between the goal and the column's words — its
 * label and the sentences of the data set's description that mention it, so "whether they left the
 * company (attrition Yes/No)" ties `attrition` to a goal about people leaving. Scores are scaled so the
 * closest column of the run is 1; with no goal every column is 0 and ranking rests on effect and support.
 */
import type { Claim } from '../../domain/index.js';
import type { Embedder } from '../../embed/port.js';
import { nameWords } from '../packs/generation/warehouse-facts.js';
import type { MiningTable } from './mining-table.js';

/**
 * Words of a request that say what to do, not what about ("identify", "analyze", "understand"), and
 * function words: kept out of relevance, where they would only add noise.
 */
const INSTRUCTION_WORDS = new Set(
  'a an the and or of to in on at for by with from into over under about as is are be been was were that this these those which what who whom whose when where why how so such can could should would will may might must do does did it its their there them they we our us you your i identify analyse analyze analysis understand find explore investigate examine assess determine evaluate study look describe characterise characterize explain inform help most more less least any each all some other others data dataset table tables record records row rows certain particular specific drive drives driven driving influence influences affect affects impact impacts cause causes reason reasons factor factors kind kinds type types group groups'.split(
    ' ',
  ),
);

/** A text reduced to its content words, lightly stemmed, so an embedder compares subjects, not grammar. */
export function contentWords(text: string): string {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 2 && !INSTRUCTION_WORDS.has(word))
    .map((word) => word.replace(/(ing|ed|es|s)$/, (suffix, offset: number) => (offset >= 4 ? '' : suffix)))
    .join(' ');
}

/**
 * How much the embedder's similarity counts at most: a goal's words rarely name the column it is about
 * ("leave" for `attrition`), so similarity ranks columns but does not decide alone.
 */
const EMBEDDING_WEIGHT = 0.4;
/** Relevance of a column whose label's words the goal uses (all of them: 1; some: in proportion). */
const WORD_MATCH_RELEVANCE = 1;
/** Relevance of the columns the description's goal-closest clause names (if it names only a few). */
const CLAUSE_LINK_RELEVANCE = 0.5;
const MAX_CLAUSE_COLUMNS = 3;

/** Two content words with the same stem: equal, or one a prefix of the other of five letters or more. */
function sameStem(left: string, right: string): boolean {
  if (left === right) return true;
  const [short, long] = left.length <= right.length ? [left, right] : [right, left];
  return short.length >= 5 && long.startsWith(short.slice(0, Math.max(5, short.length - 1)));
}

/** Cosine below this is noise of the hashing embedder, not relatedness. */
const MIN_SIMILARITY = 0.05;

/** Cosine similarity of two embeddings (0 when either is all zeros). */
export function cosine(left: readonly number[], right: readonly number[]): number {
  let dot = 0;
  let a = 0;
  let b = 0;
  for (let i = 0; i < left.length; i++) {
    dot += (left[i] as number) * (right[i] as number);
    a += (left[i] as number) ** 2;
    b += (right[i] as number) ** 2;
  }
  return a > 0 && b > 0 ? dot / Math.sqrt(a * b) : 0;
}

/** Clauses of a description: split at sentence and list punctuation, a bracket kept with the words before it. */
function clausesOf(description: string): string[] {
  const clauses: string[] = [];
  let depth = 0;
  let current = '';
  const characters = [...description];
  for (const [index, char] of characters.entries()) {
    // "1,470" is a number; ", " separates a list
    if (char === ',' && !/\s/.test(characters[index + 1] ?? ' ')) {
      current += char;
      continue;
    }
    if (char === '(') depth++;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (/[.;:\n]/.test(char) || char === ',')) {
      if (current.trim() !== '') clauses.push(current.trim());
      current = '';
    } else current += char;
  }
  if (current.trim() !== '') clauses.push(current.trim());
  return clauses;
}

function mentions(clause: string, words: readonly string[]): boolean {
  const lower = clause.toLowerCase();
  return words.some(
    (word) =>
      word.length >= 4 && new RegExp(`\\b${word.slice(0, Math.max(4, word.length - 2)).replace(/[^a-z0-9]/g, '')}`, 'i').test(lower),
  );
}

/** Names of places: what a goal asking "where" is about. */
const PLACE_NAME =
  /(^|_)(origin|destination|dest|location|region|country|state|city|site|store|branch|zip|postcode|address|airport|port|area|territory|market|warehouse|office|county|district|neighbou?rhood|lat|latitude|lon|long|longitude)(_|$)/i;
/** Names of people and owners: what a goal asking "who" is about. */
const PERSON_NAME =
  /(^|_)(assigned|assignee|owner|agent|user|employee|manager|caller|customer|client|author|seller|buyer|driver|staff|rep|representative|opened_by|closed_by|created_by)(_|$)/i;
/** Relevance a question word in the goal gives the columns it asks about. */
const QUESTION_CUE_RELEVANCE = 0.6;

/**
 * What kind of measure a goal asks about, from its words: money ("earn", "price", "cost"), time taken or
 * lateness ("slow", "late", "how long"), volume ("how many", "number of") and likelihood ("likely",
 * "risk", "rate"). A measure of that kind is relevant whatever its name.
 */
const MONEY_GOAL =
  /\b(earn\w*|revenue\w*|pric\w*|cost\w*|spend\w*|spent|profit\w*|income|pay\w*|paid|sales|box office|gross\w*|budget\w*|money|financ\w*|expens\w*|valu\w*)\b/i;
const MONEY_MEASURE =
  /(usd|eur|gbp|dollar|euro|price|cost|amount|revenue|sales|gross|income|pay|budget|spend|fee|salary|wage|value|profit)/i;
const TIME_GOAL =
  /\b(slow\w*|fast\w*|late\w*|delay\w*|how long|duration\w*|time to|wait\w*|speed\w*|quick\w*|resolution time|turnaround|processing time|on time)\b/i;
const TIME_MEASURE = /(delay|duration|elapsed|latency|wait|time_to|ttr|processing|minutes|hours|days|_min$|_sec$|_ms$)/i;
const VOLUME_GOAL = /\b(how many|number of|numbers|count\w*|volume\w*|frequen\w*|increas\w*|grow\w*|declin\w*)\b/i;
const LIKELIHOOD_GOAL =
  /\b(likel\w*|likelihood|risk\w*|rate|rates|probab\w*|chance\w*|odds|success\w*|fail\w*|reject\w*|leave|leaving|churn\w*|attrition|retention)\b/i;
const MEASURE_CUE_RELEVANCE = 0.6;

/** Relevance a goal's wording gives a measure by its kind (money, time taken, likelihood). */
export function measureCueRelevance(goal: string, column: { name: string; label: string; role?: string }, isDuration = false): number {
  const name = `${column.name} ${column.label}`;
  if (column.role === 'measure' && MONEY_GOAL.test(goal) && MONEY_MEASURE.test(name)) return MEASURE_CUE_RELEVANCE;
  if ((isDuration || column.role === 'measure') && TIME_GOAL.test(goal) && (isDuration || TIME_MEASURE.test(name)))
    return MEASURE_CUE_RELEVANCE;
  if (column.role === 'binary' && LIKELIHOOD_GOAL.test(goal)) return MEASURE_CUE_RELEVANCE;
  return 0;
}

/** Whether a goal asks how many: counts of rows per group and period matter. */
export function goalAsksVolume(goal: string): boolean {
  return VOLUME_GOAL.test(goal);
}

/** The kinds of column a goal's question words ask about: "when" → time, "where" → places, "who" → people. */
export function questionCueRelevance(goal: string, column: { name: string; role?: string; calendar?: unknown }): number {
  const text = goal.toLowerCase();
  const asksWhen = /\b(when|what time|which (day|month|hour|week|season)s?|season\w*|time of day|during)\b/.test(text);
  const asksWhere = /\b(where|which (location|region|country|site|store|city|airport)s?)\b/.test(text);
  const asksWho = /\b(who|which (agent|user|employee|team|person|people|manager)s?)\b/.test(text);
  const isTime = column.role === 'time' || column.role === 'period' || column.role === 'calendar' || column.calendar !== undefined;
  if (asksWhen && isTime) return QUESTION_CUE_RELEVANCE;
  if (asksWhere && PLACE_NAME.test(column.name)) return QUESTION_CUE_RELEVANCE;
  if (asksWho && PERSON_NAME.test(column.name)) return QUESTION_CUE_RELEVANCE;
  return 0;
}

export type ColumnRelevance = ReadonlyMap<string, number>;

/** Words of a column, for finding the clauses that mention it. */
function columnWords(column: { name: string; label: string }): string[] {
  return [...new Set([...nameWords(column.name), ...nameWords(column.label)])];
}

/**
 * `qualified.column` → 0–1 relevance to the goal: the best similarity between the goal and the
 * column's label or a clause of the description that mentions it — a clause that lists many columns
 * counts less (divided by the square root of how many it names), since it defines none of them.
 */
export async function columnRelevance(
  embedder: Embedder,
  goal: string,
  description: string,
  tables: readonly MiningTable[],
  signal?: AbortSignal,
): Promise<ColumnRelevance> {
  const relevance = new Map<string, number>();
  if (goal.trim() === '') return relevance;
  // the row noun is in every clause and in the goal ("films"): it relates nothing to anything
  const nouns = tables.flatMap((table) => table.noun.split(/\s+/)).filter((word) => word.length >= 3 && word !== 'rows');
  const stripNouns = (text: string) =>
    nouns.reduce((current, noun) => current.replace(new RegExp(`\\b${noun.replace(/s$/, '')}s?\\b`, 'gi'), ' '), text);
  const clauses = clausesOf(description);
  const texts: string[] = [contentWords(stripNouns(goal)), ...clauses.map((clause) => contentWords(stripNouns(clause)))];
  const entries: Array<{ key: string; label: number; clauses: Array<{ index: number; weight: number }> }> = [];
  for (const table of tables) {
    const mentioned = clauses.map((clause) => table.columns.filter((column) => mentions(clause, columnWords(column))).length);
    for (const column of table.columns) {
      texts.push(contentWords(column.label));
      const own = clauses
        .map((_clause, index) => ({ index, count: mentioned[index] ?? 0 }))
        .filter(({ index }) => mentions(clauses[index] as string, columnWords(column)))
        .map(({ index, count }) => ({ index: index + 1, weight: 1 / Math.sqrt(Math.max(1, count)) }));
      entries.push({ key: `${table.qualified}.${column.name}`, label: texts.length - 1, clauses: own });
    }
    for (const duration of table.durations) {
      texts.push(contentWords(`${duration.label} ${duration.start} ${duration.end}`));
      entries.push({ key: `${table.qualified}.${duration.start}->${duration.end}`, label: texts.length - 1, clauses: [] });
    }
  }
  const vectors = await embedder.embed(texts, signal ? { signal } : undefined);
  const goalVector = vectors[0];
  if (!goalVector) return relevance;
  const similarity = (index: number) => cosine(goalVector, vectors[index] as number[]);
  const scores = entries.map((entry) =>
    Math.max(similarity(entry.label), ...entry.clauses.map((clause) => similarity(clause.index) * clause.weight)),
  );
  const top = Math.max(0, ...scores);
  entries.forEach((entry, index) => {
    const score = scores[index] ?? 0;
    relevance.set(entry.key, top < MIN_SIMILARITY || score < MIN_SIMILARITY ? 0 : EMBEDDING_WEIGHT * (score / top));
  });
  // a goal that uses a column's own words ("sale prices", "low birth weight") is about that column
  const goalWords = contentWords(stripNouns(goal))
    .split(' ')
    .filter((word) => word.length >= 3);
  for (const table of tables)
    for (const column of table.columns) {
      const labelWords = contentWords(column.label)
        .split(' ')
        .filter((word) => word.length >= 3 && !/^\d/.test(word));
      if (labelWords.length === 0) continue;
      const matched = labelWords.filter((word) => goalWords.some((goalWord) => sameStem(word, goalWord))).length;
      const key = `${table.qualified}.${column.name}`;
      if (matched > 0) relevance.set(key, Math.max(relevance.get(key) ?? 0, (WORD_MATCH_RELEVANCE * matched) / labelWords.length));
    }
  // the description's clause closest to the goal names what the goal is about ("whether they left the company (attrition Yes/No)")
  const clauseScores = clauses.map((_, index) => similarity(index + 1));
  const bestClause = clauseScores.indexOf(Math.max(0, ...clauseScores));
  if (bestClause >= 0 && (clauseScores[bestClause] ?? 0) >= MIN_SIMILARITY) {
    for (const table of tables) {
      const named = table.columns.filter((column) => mentions(clauses[bestClause] as string, columnWords(column)));
      if (named.length === 0 || named.length > MAX_CLAUSE_COLUMNS) continue;
      for (const column of named) {
        const key = `${table.qualified}.${column.name}`;
        relevance.set(key, Math.max(relevance.get(key) ?? 0, CLAUSE_LINK_RELEVANCE));
      }
    }
  }
  for (const table of tables)
    for (const column of table.columns) {
      const key = `${table.qualified}.${column.name}`;
      relevance.set(key, Math.max(relevance.get(key) ?? 0, questionCueRelevance(goal, column), measureCueRelevance(goal, column)));
    }
  for (const table of tables)
    for (const duration of table.durations) {
      const key = `${table.qualified}.${duration.start}->${duration.end}`;
      relevance.set(key, Math.max(relevance.get(key) ?? 0, measureCueRelevance(goal, { name: duration.end, label: duration.label }, true)));
    }
  return relevance;
}

/** Whether the goal names the segment's value itself ("the Finance department", "Hardware incidents"). */
export function goalNamesValue(goal: string, value: unknown): boolean {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text.length < 3 || /^\d/.test(text)) return false;
  const escaped = text.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(goal.toLowerCase());
}

/**
 * A claim's relevance from its columns': mostly what it measures (the outcome the goal is about), partly
 * who it groups by; for a share, the grouping itself; for a correlation, the closer of its two measures.
 */
export function claimRelevance(relevance: (column: string) => number, claim: Claim, asksVolume = false): number {
  const metric = claim.metric;
  const measured = [metric.column, metric.start_column, metric.end_column, metric.condition?.column, claim.x?.column].filter(
    (column): column is string => column !== undefined,
  );
  const grouped = [claim.segment?.column, claim.series?.column].filter((column): column is string => column !== undefined);
  const best = (columns: readonly string[]) => Math.max(0, ...columns.map(relevance));
  if (claim.kind === 'correlation') return best(measured);
  if (claim.kind === 'share') return Math.max(best(grouped), metric.kind === 'sum' ? best(measured) : 0);
  // a count of rows measures nothing the goal names unless it asks how many: otherwise only who or when it is about
  if (measured.length === 0) return (asksVolume ? 0.5 : 0) + 0.5 * best(grouped);
  return 0.75 * best(measured) + 0.25 * best(grouped);
}
