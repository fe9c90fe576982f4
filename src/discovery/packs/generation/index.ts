/**
 * Pack generation: a domain pack proposed for one warehouse, built on the general pack's prompts.
 *
 * Entry point for every caller (`assay pack generate`, the API's pack-generate, `assay eval`):
 *
 *   generatePack({ tables | warehouse, slug, basePack, describe?, goal?, llm? }): Promise<GeneratedPack>
 *
 * - `tables` (described tables, e.g. a project's schema cache) or `warehouse` (a Warehouse port; its
 *   tables are listed and described here). The sample rows of the tables the facts read (the largest)
 *   come through `samples` (e.g. the project's cached sampler), else from `warehouse`.
 * - `basePack`: the pack whose prompts the draft specialises, the shipped `general` pack
 *   ({@link GENERAL_PACK_SLUG}) as the caller loads it (the engine reads no pack files itself).
 * - `llm`: a bound model (LlmBinding). Leave it out for the offline analyst: the areas are then derived
 *   deterministically from the schema (see deterministic-proposal.ts). With a model, one budgeted call
 *   proposes the areas; an unusable reply gets one reformat retry, then the deterministic proposal is
 *   used and `notes` says so.
 * - Returns `pack` (a DomainPack validated by the same loader as the shipped packs) and `files` (the
 *   pack directory as `{ 'pack.json': …, 'prompts/<name>.md': … }`: write them to a directory and pass
 *   its path as the pack of `assay run --pack DIR` or `runDiscovery`).
 */
import type { LlmCallRecord } from '../../../domain/index.js';
import { ValidationError } from '../../../errors/index.js';
import { createTableSampler, discoverSchema, withSamples, type TableSampler } from '../../../schema/index.js';
import type { TableSchema, Warehouse } from '../../../warehouse/port.js';
import type { LlmBinding } from '../../../llm/catalog.js';
import { loadPackFromFiles } from '../pack-loader.js';
import type { DomainPack } from '../pack-schema.js';
import type { ProtocolPreference } from '../../../llm/structured-output.js';
import { proposeFromFacts, suggestProfile } from './deterministic-proposal.js';
import { PackGenerationError } from './errors.js';
import { proposalFailureNote, proposeWithModel } from './model-proposal.js';
import { rowNounOf } from '../../mining/row-noun.js';
import { renderPackFiles } from './pack-files.js';
import { packContentHash } from './project-pack.js';
import { MAX_NAME_CHARS, cleanLine, type PackProposal, type SuggestedProfile } from './proposal.js';
import { readWarehouseFacts, tablesConsidered } from './warehouse-facts.js';

export { choosePackForTables, type PackChoice } from './pack-match.js';
export { PackGenerationError } from './errors.js';
export type { PackProposal, ProposedArea, SuggestedProfile } from './proposal.js';
export {
  acceptPackDraft,
  freezePackVersion,
  frozenManifestVersion,
  isProjectPackRef,
  loadProjectPack,
  packContentHash,
  parseProjectPackRef,
  projectPackRef,
  resolvePack,
  type FrozenPack,
} from './project-pack.js';

/** The base pack every generated pack specialises. */
export const GENERAL_PACK_SLUG = 'general';
/** Tables whose row noun a generated pack records (the largest). */
const NOUN_TABLES = 20;
/** describe/goal text kept at most this long: it is rendered into every prompt of the pack. */
export const MAX_TEAM_TEXT_CHARS = 2_000;

export interface GeneratePackInput {
  /** Described tables (a schema cache, a discovery already made). Takes precedence over `warehouse`. */
  tables?: readonly TableSchema[];
  /** The warehouse to list and describe when `tables` is not given, and to read samples from when `samples` is not. */
  warehouse?: Warehouse;
  /** Where the sample rows of the tables the facts read come from (tables that carry none). */
  samples?: TableSampler;
  /** The pack's slug (kebab-case); see {@link packSlugFrom}. */
  slug: string;
  /** Pack name; derived from the main tables when left out. */
  name?: string;
  /** What the team says the data is. */
  describe?: string;
  /** What the team wants to learn. */
  goal?: string;
  /** A bound model; leave out for the deterministic (offline analyst) path. */
  llm?: LlmBinding;
  /** The pack whose prompts are specialised: the shipped `general` pack ({@link GENERAL_PACK_SLUG}), loaded by the caller. */
  basePack: DomainPack;
  signal?: AbortSignal;
  /** Told about every model call (usage accounting). */
  onLlmCall?: (record: LlmCallRecord) => void;
  /** `config.llmProtocol`. @defaultValue `auto` */
  protocol?: ProtocolPreference;
}

export interface GeneratedPack {
  /** Validated by the pack loader, exactly as a shipped pack is. */
  pack: DomainPack;
  /** `pack.json` and `prompts/<name>.md`, keyed by path inside the pack directory. */
  files: Record<string, string>;
  proposal: PackProposal;
  /** Suggested values for the profile form (also the profile schema's defaults). */
  profile: SuggestedProfile;
  /** `llm` when the model's proposal was used, `offline` when the areas were derived from the schema. */
  generator: 'offline' | 'llm';
  notes: string[];
  /** Content hash of `pack` (16 hex characters). */
  hash: string;
  /** Tables read (before copies and empty tables were set aside). */
  tableCount: number;
}

/** `Shop Analytics!` → `shop-analytics`: a pack slug the loader accepts (kebab-case, starting with a letter). */
export function packSlugFrom(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug.length > 0 ? slug : 'generated';
}

function teamText(text: string | undefined, field: string): string | undefined {
  if (text === undefined) return undefined;
  const cleaned = cleanLine(text, MAX_TEAM_TEXT_CHARS);
  if (cleaned.length === 0) throw new ValidationError(`${field} must not be empty when given`, [{ path: field, message: 'empty' }]);
  return cleaned;
}

export async function generatePack(input: GeneratePackInput): Promise<GeneratedPack> {
  if (packSlugFrom(input.slug) !== input.slug)
    throw new ValidationError(`pack slug "${input.slug}" must be kebab-case (a-z, 0-9, -), e.g. "${packSlugFrom(input.slug)}"`, [
      { path: 'slug', message: 'not kebab-case' },
    ]);
  const described =
    input.tables ?? (input.warehouse ? await discoverSchema(input.warehouse, input.signal ? { signal: input.signal } : {}) : undefined);
  if (!described)
    throw new ValidationError('generatePack needs the warehouse or its described tables', [{ path: 'tables', message: 'missing' }]);
  if (described.length === 0) throw new PackGenerationError('the warehouse has no tables to build a pack on');
  const sampler = input.samples ?? (input.warehouse ? createTableSampler({ warehouse: input.warehouse }) : undefined);
  const unsampled = tablesConsidered(described).filter((table) => table.samples === undefined);
  const tables = sampler && unsampled.length > 0 ? await withSamples(described, unsampled, sampler, { signal: input.signal }) : described;
  const base = input.basePack;
  const describe = teamText(input.describe, 'describe');
  const goal = teamText(input.goal, 'goal');
  const facts = readWarehouseFacts(tables);
  // the largest tables are the ones mining reads: their row nouns, for the team to correct in pack.json
  const nouns = Object.fromEntries(
    [...tables]
      .sort((left, right) => right.rowCount - left.rowCount)
      .slice(0, NOUN_TABLES)
      .flatMap((table) => {
        const noun = rowNounOf(table, describe ?? '');
        return noun ? [[table.qualified, noun] as const] : [];
      }),
  );
  const render = (proposal: PackProposal) => renderPackFiles(base, proposal, { slug: input.slug, describe, goal, nouns });
  const label = `generated:${input.slug}`;

  const notes: string[] = [];
  let proposal: PackProposal | undefined;
  if (input.llm) {
    const outcome = await proposeWithModel({
      binding: input.llm,
      tables,
      facts,
      archetypes: base.areas,
      profile: suggestProfile(facts, { describe, goal }),
      describe,
      goal,
      validatePack: (candidate) => loadPackFromFiles(render(candidate), label),
      signal: input.signal,
      onLlmCall: input.onLlmCall,
      protocol: input.protocol,
    });
    if (outcome.ok) {
      proposal = outcome.proposal;
      notes.push(...outcome.notes);
    } else notes.push(proposalFailureNote(outcome.reason));
  }
  const generator = proposal ? 'llm' : 'offline';
  proposal ??= proposeFromFacts(facts, { archetypes: base.areas, describe, goal, name: input.name });
  if (input.name !== undefined) proposal = { ...proposal, name: cleanLine(input.name, MAX_NAME_CHARS) };
  const files = render(proposal);
  const pack = loadPackFromFiles(files, label);
  return { pack, files, proposal, profile: proposal.profile, generator, notes, hash: packContentHash(pack), tableCount: tables.length };
}
