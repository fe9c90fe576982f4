/**
 * Which domain pack an InsightBench run uses. The flags are not from any business a shipped pack
 * assumes, so the harness prefers a pack generated for the flag's own tables, goal and description;
 * `general` (the domain-neutral base pack) and `ecommerce` (the original demo pack) remain as
 * fall-backs, each chosen by changing {@link INSIGHTBENCH_PACK_STRATEGY}.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  GENERAL_PACK_SLUG,
  type GeneratedPack,
  PackGenerationError,
  generatePack,
  packSlugFrom,
} from '../../discovery/packs/generation/index.js';
import type { LlmBinding } from '../../llm/catalog.js';
import { loadPack } from '../../discovery/packs/pack-loader.js';
import { directoryPackLibrary } from '../../pack-files/directory.js';
import type { TableSchema } from '../../warehouse/port.js';
import type { TableSampler } from '../../schema/table-samples.js';

export type PackStrategy = 'generated' | 'general' | 'ecommerce';

/** The pack every InsightBench run uses unless the caller says otherwise: switch strategies here. */
export const INSIGHTBENCH_PACK_STRATEGY: PackStrategy = 'generated';

/** The pack a run falls back to when the general pack is not installed. */
const FALLBACK_PACK_SLUG = 'ecommerce';
/** The shipped packs on disk (`domain-packs/`, looked up at first use). */
const SHIPPED_PACKS = directoryPackLibrary();

export interface PackChoiceInput {
  strategy: PackStrategy;
  /** Described tables of the flag's warehouse (what generation reads). */
  tables: readonly TableSchema[];
  /** Where generation reads the sample rows of the tables it looks at (discovery reads none). */
  samples?: TableSampler | undefined;
  /** Used as the generated pack's slug (made kebab-case). */
  name: string;
  describe: string;
  goal: string;
  /** Where a generated pack's directory is written. */
  directory: string;
  /** A real model proposes the areas; without one they are derived from the schema. */
  llm?: LlmBinding | undefined;
  /** Told about every fall-back. */
  onNotice?: ((line: string) => void) | undefined;
}

export interface PackChoice {
  /** The strategy that produced the pack: the requested one, or the fall-back it came to. */
  strategy: PackStrategy;
  /** What the run records as its pack: a shipped slug or the generated pack's directory. */
  ref: string;
  slug: string;
  /** `offline` or `llm` for a generated pack. */
  generator?: 'offline' | 'llm';
  areas: string[];
  notes: string[];
  /** Profile values the generator suggests for the project (main entities, measures, time columns). */
  profile: Record<string, unknown>;
}

function shippedPack(slug: string, strategy: PackStrategy): PackChoice {
  const pack = loadPack(SHIPPED_PACKS, slug);
  return { strategy, ref: slug, slug, areas: pack.areas.map((area) => area.id), notes: [], profile: {} };
}

function generalOrFallback(onNotice: PackChoiceInput['onNotice']): PackChoice {
  try {
    return shippedPack(GENERAL_PACK_SLUG, 'general');
  } catch (error) {
    onNotice?.(
      `warning: the "${GENERAL_PACK_SLUG}" pack cannot be loaded (${(error as Error).message}): using the "${FALLBACK_PACK_SLUG}" pack, whose areas assume an online shop`,
    );
    return shippedPack(FALLBACK_PACK_SLUG, 'ecommerce');
  }
}

export async function choosePack(input: PackChoiceInput): Promise<PackChoice> {
  if (input.strategy === 'ecommerce') {
    input.onNotice?.(`warning: using the "${FALLBACK_PACK_SLUG}" pack, whose areas assume an online shop`);
    return shippedPack(FALLBACK_PACK_SLUG, 'ecommerce');
  }
  if (input.strategy === 'general') return generalOrFallback(input.onNotice);
  let generated: GeneratedPack;
  try {
    generated = await generatePack({
      tables: input.tables,
      ...(input.samples ? { samples: input.samples } : {}),
      slug: packSlugFrom(`insightbench-${input.name}`),
      basePack: loadPack(SHIPPED_PACKS, GENERAL_PACK_SLUG),
      ...(input.describe ? { describe: input.describe } : {}),
      ...(input.goal ? { goal: input.goal } : {}),
      ...(input.llm ? { llm: input.llm } : {}),
    });
  } catch (error) {
    // a schema too thin for a pack (too few areas it supports) is a property of the data, not a failure of the run
    if (!(error instanceof PackGenerationError)) throw error;
    const note = `${error.message}: using the "${GENERAL_PACK_SLUG}" pack`;
    input.onNotice?.(`warning: ${note}`);
    const fallback = generalOrFallback(input.onNotice);
    return { ...fallback, notes: [note, ...fallback.notes] };
  }
  for (const [path, text] of Object.entries(generated.files)) {
    const target = join(input.directory, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return {
    strategy: 'generated',
    ref: input.directory,
    slug: generated.pack.slug,
    generator: generated.generator,
    areas: generated.pack.areas.map((area) => area.id),
    notes: generated.notes,
    profile: { ...generated.profile },
  };
}
