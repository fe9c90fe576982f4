/**
 * A pack proposal: the warehouse-specific part of a generated pack (areas with names, descriptions,
 * keywords and focus lines; the exploration context; a suggested profile), before it is rendered onto
 * the base pack's prompts. Both generators (deterministic and model) produce one; `checkProposal`
 * holds the rules every proposal must meet.
 */

/** Areas a generated pack has: fewer says too little, more spreads a run's steps too thin. */
export const MIN_GENERATED_AREAS = 3;
export const MAX_GENERATED_AREAS = 6;
/** Keywords per area: the pack loader wants three; beyond ten they stop telling areas apart. */
export const MIN_AREA_KEYWORDS = 3;
export const MAX_AREA_KEYWORDS = 10;
/** One line each: area descriptions are rendered into a one-line list the exploration prompt shows. */
export const MAX_DESCRIPTION_CHARS = 400;
export const MAX_NAME_CHARS = 100;
/** Focus lines per area and context lines per pack. */
export const MAX_FOCUS_LINES = 6;
export const MAX_CONTEXT_LINES = 12;

export interface ProposedArea {
  /** The base pack area whose prompt this area specialises (`segments`, `durations` …). */
  archetype: string;
  id: string;
  name: string;
  description: string;
  /** Real table and column names, lower-case. */
  keywords: string[];
  priority: number;
  /** What to look at in this warehouse, shown to the analyst in the area's prompt. */
  focus: string[];
}

/** Profile values for the base pack's profile form (general: basic_info, measures). */
export interface SuggestedProfile {
  basic_info: { dataset_name: string; description?: string; main_entities: string[]; goal?: string };
  measures: { key_measures: string[]; time_columns: string[] };
}

export interface PackProposal {
  name: string;
  description: string;
  areas: ProposedArea[];
  /** Lines of the exploration prompt's "What is known about this warehouse" section. */
  context: string[];
  profile: SuggestedProfile;
}

/** One line, no template braces: proposal text ends up inside prompt templates. */
export function cleanLine(text: string, maxChars: number): string {
  const line = text.replace(/\s+/g, ' ').replace(/\{\{/g, '{ {').replace(/\}\}/g, '} }').trim();
  return line.length <= maxChars ? line : `${line.slice(0, maxChars - 1).trimEnd()}…`;
}

/** `Durations and Throughput` → `durations_and_throughput`: an area id the pack loader accepts. */
export function snakeId(text: string): string {
  const id = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '');
  return id.length > 0 ? id.slice(0, 48).replace(/_+$/, '') : 'area';
}

/** Lower-cased, de-duplicated, in first-seen order, at most `max`. */
export function uniqueNames(names: Iterable<string>, max: number): string[] {
  const seen: string[] = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    if (lower.length > 0 && !seen.includes(lower)) seen.push(lower);
    if (seen.length >= max) break;
  }
  return seen;
}

/**
 * Problems that make a proposal unusable, each naming the area and field: area count, unique ids,
 * a known archetype, and keywords that are real table or column names (at least three per area).
 */
export function checkProposal(
  proposal: PackProposal,
  options: { realNames: ReadonlySet<string>; archetypes: readonly string[] },
): string[] {
  const problems: string[] = [];
  const count = proposal.areas.length;
  if (count < MIN_GENERATED_AREAS || count > MAX_GENERATED_AREAS)
    problems.push(`areas: expected ${MIN_GENERATED_AREAS} to ${MAX_GENERATED_AREAS} areas, got ${count}`);
  const ids = new Set<string>();
  proposal.areas.forEach((area, index) => {
    const at = `areas[${index}]`;
    if (ids.has(area.id)) problems.push(`${at}.id: duplicate area id "${area.id}"`);
    ids.add(area.id);
    if (!options.archetypes.includes(area.archetype))
      problems.push(`${at}.archetype: "${area.archetype}" is not one of ${options.archetypes.join(', ')}`);
    const unknown = area.keywords.filter((keyword) => !options.realNames.has(keyword));
    if (unknown.length > 0) problems.push(`${at}.keywords: not a table or column name: ${unknown.join(', ')}`);
    if (area.keywords.length < MIN_AREA_KEYWORDS)
      problems.push(`${at}.keywords: expected at least ${MIN_AREA_KEYWORDS} table or column names, got ${area.keywords.length}`);
  });
  return problems;
}
