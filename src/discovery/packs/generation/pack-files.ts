/**
 * Renders a proposal onto the base pack's prompts as a pack document (`pack.json` + `prompts/*.md`):
 * each area's prompt is its archetype's prompt with an "In this warehouse" section, the exploration
 * prompt gains what is known about the warehouse, the base context and recommendations the team's own
 * words. Template variables are the base pack's, so the generated pack honours the same contract.
 */
import type { DomainPack } from '../pack-schema.js';
import { PackGenerationError } from './errors.js';
import type { PackProposal, SuggestedProfile } from './proposal.js';

/** Draft packs start at 1.0.0; accepting one on a project rewrites it to the frozen version's number. */
export const GENERATED_PACK_VERSION = '1.0.0';

/** Headings of the base prompts the generated sections go in front of. */
const ANALYSIS_ANCHOR = '## How to read the evidence';
const EXPLORATION_ANCHOR = '## The table catalog';
const BASE_CONTEXT_ANCHOR = '## The data set';
const RECOMMENDATIONS_ANCHOR = '## Insights';

function insertBefore(text: string, anchor: string, section: string, file: string): string {
  const at = text.indexOf(`\n${anchor}`);
  if (at < 0) throw new PackGenerationError(`the base prompt ${file} has no "${anchor}" heading to put the warehouse's section before`);
  return `${text.slice(0, at + 1)}${section.trimEnd()}\n\n${text.slice(at + 1)}`;
}

function bullets(lines: readonly string[]): string {
  return lines.map((line) => `- ${line}`).join('\n');
}

/**
 * The base pack's profile schema with the suggested values as `default`s on the fields that exist, so
 * a profile form opens pre-filled. Fields the base schema does not have are left out.
 */
function profileSchemaWithDefaults(base: DomainPack['profile_schema'], profile: SuggestedProfile): DomainPack['profile_schema'] {
  const schema = structuredClone(base) as { properties: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
  for (const [sectionName, values] of Object.entries(profile) as Array<[string, Record<string, unknown>]>) {
    const fields = schema.properties[sectionName]?.properties;
    if (!fields) continue;
    for (const [field, value] of Object.entries(values)) {
      const property = fields[field];
      const empty = value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
      if (property && !empty) property.default = value;
    }
  }
  return schema as unknown as DomainPack['profile_schema'];
}

export interface RenderPackOptions {
  slug: string;
  describe?: string | undefined;
  goal?: string | undefined;
  /** The noun for one row of each table (`main.incidents` → incidents), written to the pack's `mining.nouns` for the team to edit. */
  nouns?: Readonly<Record<string, string>> | undefined;
}

export function renderPackFiles(base: DomainPack, proposal: PackProposal, options: RenderPackOptions): Record<string, string> {
  const files: Record<string, string> = {};
  const baseAreas = new Map(base.areas.map((area) => [area.id, area]));
  const manifestAreas = proposal.areas.map((area) => {
    const archetype = baseAreas.get(area.archetype);
    if (!archetype)
      throw new PackGenerationError(`area "${area.id}" specialises "${area.archetype}", which pack "${base.slug}" does not have`);
    const promptFile = `analysis_${area.id}.md`;
    const section = `## In this warehouse\n\n${bullets(area.focus.length > 0 ? area.focus : [area.description])}\n`;
    files[`prompts/${promptFile}`] = insertBefore(archetype.prompt, ANALYSIS_ANCHOR, section, `${base.slug}/${archetype.prompt_file}`);
    return {
      id: area.id,
      name: area.name,
      description: area.description,
      keywords: area.keywords,
      priority: area.priority,
      prompt_file: promptFile,
      // the kinds of finding its archetype is evidence for go with it (area-assignment reads them)
      ...(archetype.finding_kinds && archetype.finding_kinds.length > 0 ? { finding_kinds: archetype.finding_kinds } : {}),
    };
  });

  const teamWords = [
    ...(options.describe ? [`The team describes the data as: ${options.describe}`] : []),
    ...(options.goal ? [`The team wants to learn: ${options.goal}`] : []),
  ];
  files['prompts/base_context.md'] =
    teamWords.length > 0
      ? insertBefore(
          base.prompts.base_context,
          BASE_CONTEXT_ANCHOR,
          `## In the team's words\n\n${bullets(teamWords)}\n`,
          `${base.slug}/base_context.md`,
        )
      : base.prompts.base_context;
  files['prompts/exploration.md'] =
    proposal.context.length > 0
      ? insertBefore(
          base.prompts.exploration,
          EXPLORATION_ANCHOR,
          `## What is known about this warehouse\n\n${bullets(proposal.context)}\n`,
          `${base.slug}/exploration.md`,
        )
      : base.prompts.exploration;
  files['prompts/recommendations.md'] = options.goal
    ? insertBefore(
        base.prompts.recommendations,
        RECOMMENDATIONS_ANCHOR,
        `The team wants to learn: ${options.goal.replace(/[.\s]+$/, '')}. Prefer actions that serve that goal.\n`,
        `${base.slug}/recommendations.md`,
      )
    : base.prompts.recommendations;

  const manifest = {
    slug: options.slug,
    name: proposal.name,
    description: proposal.description,
    version: GENERATED_PACK_VERSION,
    areas: manifestAreas,
    prompts: { base_context: 'base_context.md', exploration: 'exploration.md', recommendations: 'recommendations.md' },
    profile_schema: profileSchemaWithDefaults(base.profile_schema, proposal.profile),
    ...(options.nouns && Object.keys(options.nouns).length > 0 ? { mining: { nouns: options.nouns } } : {}),
  };
  return {
    'pack.json': `${JSON.stringify(manifest, null, 2)}\n`,
    ...Object.fromEntries(Object.entries(files).sort(([left], [right]) => (left < right ? -1 : 1))),
  };
}
