/**
 * Loads domain packs (`pack.json` + `prompts/*.md`), validating everything at load time so a broken
 * pack fails with one line naming the pack, the file and the field, before any run spends a token.
 * The loader reads no files itself: a pack's files come through the pack-file port
 * (`src/pack-files/port.ts`) — a library of packs by slug (the shipped `domain-packs/` on disk,
 * through the adapter chosen in the composition root), a pack directory, or a document of files held
 * in memory (`loadPackFromFiles`: generated drafts, a project's frozen versions). The same rules apply
 * to all of them. Also resolves a pack's areas for a category in a deterministic order.
 */
import { isAbsolute } from 'node:path';
import type { z } from 'zod';
import { AssayError, NotFoundError, PackError } from '../../errors/index.js';
import type { PackFileSource, PackLibrary } from '../../pack-files/port.js';
import {
  ALLOWED_VARIABLES,
  REQUIRED_VARIABLES,
  packManifestSchema,
  type AnalysisArea,
  type AreaManifest,
  type DomainPack,
  type PackCategory,
  type PackManifest,
  type PromptKind,
} from './pack-schema.js';
import { assertTemplateVariables } from './template.js';

export { ALLOWED_VARIABLES, REQUIRED_VARIABLES, type PromptKind } from './pack-schema.js';

export interface LoadPacksOptions {
  /** Include hidden packs (system-test). @defaultValue false */
  includeHidden?: boolean;
}

const MANIFEST_FILE = 'pack.json';
const PROMPTS_DIR = 'prompts';
/** How many zod issues one error line shows before summarising the rest. */
const MAX_ISSUES_IN_MESSAGE = 3;

function failure(slug: string, message: string, details: { file?: string; field?: string } = {}): PackError {
  return new PackError(`pack "${slug}": ${message}`, { pack: slug, ...details });
}

/** `['areas', 1, 'keywords']` → `areas[1].keywords`. */
function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)),
    '',
  );
}

function formatIssue(issue: z.core.$ZodIssue): string {
  const message =
    issue.code === 'invalid_type' && issue.message.endsWith('received undefined') ? `required (expected ${issue.expected})` : issue.message;
  return `${formatPath(issue.path) || '(root)'}: ${message}`;
}

/** JSON.parse reports a character offset; a line and column is what an editor can jump to. */
function jsonErrorReason(error: unknown, text: string): string {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
  const offset = /at position (\d+)/.exec(reason)?.[1];
  if (offset === undefined || /line \d+/.test(reason)) return reason;
  const before = text.slice(0, Number(offset)).split('\n');
  return `${reason} (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
}

/** A pack document: `pack.json` and `prompts/<name>.md`, keyed by their path inside the pack directory. */
export type PackFiles = Readonly<Record<string, string>>;

/** The only paths a pack document may hold: what a pack directory holds, with no way out of it. */
const PACK_FILE_PATH = /^(pack\.json|prompts\/[a-z][a-z0-9_]*\.md)$/;

function filesSource(label: string, files: PackFiles): PackFileSource {
  return {
    label,
    read: (relativePath) => (Object.hasOwn(files, relativePath) ? files[relativePath] : undefined),
    promptFiles: () =>
      Object.keys(files)
        .filter((path) => path.startsWith(`${PROMPTS_DIR}/`))
        .map((path) => path.slice(PROMPTS_DIR.length + 1)),
  };
}

function parseManifest(slug: string, source: PackFileSource): PackManifest {
  const text = source.read(MANIFEST_FILE);
  if (text === undefined) throw failure(slug, `missing ${MANIFEST_FILE}`, { file: MANIFEST_FILE });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw failure(slug, `${MANIFEST_FILE} is not valid JSON: ${jsonErrorReason(error, text)}`, { file: MANIFEST_FILE });
  }
  const result = packManifestSchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues;
    const shown = issues.slice(0, MAX_ISSUES_IN_MESSAGE).map(formatIssue).join('; ');
    const more = issues.length > MAX_ISSUES_IN_MESSAGE ? ` (and ${issues.length - MAX_ISSUES_IN_MESSAGE} more)` : '';
    throw failure(slug, `${MANIFEST_FILE}: ${shown}${more}`, { file: MANIFEST_FILE, field: formatPath(issues[0]?.path ?? []) });
  }
  return result.data;
}

function assertUniqueIds(slug: string, items: ReadonlyArray<{ id: string }>, path: string, noun: string): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.id)) {
      throw failure(slug, `${MANIFEST_FILE}: ${path}[${index}].id: duplicate ${noun} id "${item.id}"`, {
        file: MANIFEST_FILE,
        field: `${path}[${index}].id`,
      });
    }
    seen.add(item.id);
  });
}

/**
 * Rules zod cannot see in one field: unique ids, file names that match ids, and (for the shipped
 * root, where the directory name is how a pack is found) slug = directory name.
 */
function checkManifestConsistency(slug: string, manifest: PackManifest, slugMustMatch: boolean): void {
  if (slugMustMatch && manifest.slug !== slug) {
    throw failure(slug, `${MANIFEST_FILE}: slug: "${manifest.slug}" does not match the pack directory name "${slug}"`, {
      file: MANIFEST_FILE,
      field: 'slug',
    });
  }
  const checkAreas = (areas: readonly AreaManifest[], path: string): void => {
    assertUniqueIds(slug, areas, path, 'area');
    areas.forEach((area, index) => {
      const expected = `analysis_${area.id}.md`;
      if (area.prompt_file !== expected) {
        const field = `${path}[${index}].prompt_file`;
        throw failure(slug, `${MANIFEST_FILE}: ${field}: must be "${expected}" for area "${area.id}"`, { file: MANIFEST_FILE, field });
      }
    });
  };
  checkAreas(manifest.areas, 'areas');
  assertUniqueIds(slug, manifest.categories, 'categories', 'category');
  manifest.categories.forEach((category, index) => {
    const expected = `exploration_context_${category.id}.md`;
    if (category.prompt_file !== undefined && category.prompt_file !== expected) {
      const field = `categories[${index}].prompt_file`;
      throw failure(slug, `${MANIFEST_FILE}: ${field}: must be "${expected}" for category "${category.id}"`, {
        file: MANIFEST_FILE,
        field,
      });
    }
    checkAreas(category.areas, `categories[${index}].areas`);
  });
}

/** Reads and checks prompt files for one pack, remembering which files were used. */
class PromptReader {
  readonly used = new Set<string>();

  constructor(
    private readonly slug: string,
    private readonly source: PackFileSource,
  ) {}

  read(fileName: string, kind: PromptKind, missingMessage: string): string {
    const relative = `${PROMPTS_DIR}/${fileName}`;
    const raw = this.source.read(relative);
    if (raw === undefined) throw failure(this.slug, missingMessage, { file: relative });
    this.used.add(fileName);
    const text = raw.replace(/^\uFEFF/, '');
    if (kind !== 'exploration_context' && text.trim() === '') throw failure(this.slug, `${relative} is empty`, { file: relative });
    let names: string[];
    try {
      names = assertTemplateVariables(text, { file: relative, allowed: ALLOWED_VARIABLES[kind] });
    } catch (error) {
      if (error instanceof AssayError) throw failure(this.slug, error.message, { file: relative });
      throw error;
    }
    for (const required of REQUIRED_VARIABLES[kind]) {
      if (!names.includes(required)) {
        throw failure(this.slug, `${relative} never uses {{${required}}}, which every ${kind} prompt must show`, {
          file: relative,
          field: required,
        });
      }
    }
    return text;
  }

  /** Unreferenced prompt files are almost always a typo in an id or a stale area: refuse them. */
  assertNoStrayFiles(): void {
    const files = this.source.promptFiles().filter((name) => name.endsWith('.md'));
    const stray = files.sort().find((name) => !this.used.has(name));
    if (stray !== undefined) {
      throw failure(this.slug, `${PROMPTS_DIR}/${stray} is not referenced by ${MANIFEST_FILE}`, { file: `${PROMPTS_DIR}/${stray}` });
    }
  }
}

function loadArea(reader: PromptReader, area: AreaManifest): AnalysisArea {
  const prompt = reader.read(area.prompt_file, 'analysis', `area "${area.id}" has no prompt file ${PROMPTS_DIR}/${area.prompt_file}`);
  return { ...area, prompt };
}

/** `expectedSlug`: the directory name under the shipped root, which the manifest's slug must equal. */
function readPack(source: PackFileSource, expectedSlug: string | undefined, fallbackName: string): DomainPack {
  const manifest = parseManifest(expectedSlug ?? fallbackName, source);
  const slug = expectedSlug ?? manifest.slug;
  checkManifestConsistency(slug, manifest, expectedSlug !== undefined);
  const reader = new PromptReader(slug, source);
  const basePrompt = (key: keyof PackManifest['prompts']): string =>
    reader.read(manifest.prompts[key], key, `prompts.${key}: file ${PROMPTS_DIR}/${manifest.prompts[key]} does not exist`);
  const prompts = {
    base_context: basePrompt('base_context'),
    exploration: basePrompt('exploration'),
    recommendations: basePrompt('recommendations'),
  };
  const areas = manifest.areas.map((area) => loadArea(reader, area));
  const categories = manifest.categories.map((category): PackCategory => {
    const explorationContext =
      category.prompt_file === undefined
        ? ''
        : reader.read(
            category.prompt_file,
            'exploration_context',
            `category "${category.id}" has no prompt file ${PROMPTS_DIR}/${category.prompt_file}`,
          );
    return { ...category, exploration_context: explorationContext, areas: category.areas.map((area) => loadArea(reader, area)) };
  });
  reader.assertNoStrayFiles();
  return {
    slug: manifest.slug,
    name: manifest.name,
    description: manifest.description,
    version: manifest.version,
    hidden: manifest.hidden,
    categories,
    areas,
    prompts,
    profile_schema: manifest.profile_schema,
    mining: manifest.mining,
    source_dir: source.label,
  };
}

/** One pack of a library by slug; the manifest's slug must be the name the library knows it by. */
function readLibraryPack(library: PackLibrary, slug: string): DomainPack {
  const source = library.pack(slug);
  if (source === undefined) {
    throw new NotFoundError(`no domain pack "${slug}" in ${library.location} (available: ${library.slugs().join(', ') || 'none'})`, {
      pack: slug,
    });
  }
  return readPack(source, slug, slug);
}

/**
 * Every pack of the library, validated, sorted by slug. Hidden packs are validated too (a broken pack
 * is a broken pack) but returned only with `includeHidden`.
 */
export function loadPacks(library: PackLibrary, options: LoadPacksOptions = {}): DomainPack[] {
  const packs = library.slugs().map((slug) => readLibraryPack(library, slug));
  return options.includeHidden ? packs : packs.filter((pack) => !pack.hidden);
}

/**
 * A pack reference that names a directory rather than a shipped slug: slugs are kebab-case words,
 * so anything with a path separator, starting with `.`, or absolute, is a path.
 */
export function isPackPath(reference: string): boolean {
  return reference.includes('/') || reference.includes('\\') || reference.startsWith('.') || isAbsolute(reference);
}

/** The last segment of a path, for naming a pack whose manifest cannot be read. */
function lastSegment(path: string): string {
  return (
    path
      .split(/[\\/]/)
      .filter((part) => part !== '')
      .at(-1) ?? path
  );
}

/**
 * The pack in one directory (`pack.json` + `prompts/`), e.g. one `assay pack generate` wrote, read
 * through the library's adapter. Its slug is the manifest's: outside the library a directory's name
 * says nothing.
 */
export function loadPackFromDirectory(library: PackLibrary, directory: string): DomainPack {
  const source = library.directory(directory);
  return readPack(source, undefined, lastSegment(source.label));
}

/**
 * A pack held as a document of files (`pack.json`, `prompts/*.md`): a generated draft or a project's
 * frozen version. `label` names it in errors and becomes `source_dir`. Same rules as a directory; a
 * path that a pack directory could not hold is refused.
 */
export function loadPackFromFiles(files: PackFiles, label: string): DomainPack {
  const outside = Object.keys(files)
    .sort()
    .find((path) => !PACK_FILE_PATH.test(path));
  if (outside !== undefined) {
    throw new PackError(`pack "${label}": file "${outside}" cannot be part of a pack (only pack.json and prompts/<name>.md)`, {
      pack: label,
      file: outside,
    });
  }
  return readPack(filesSource(label, files), undefined, label);
}

/**
 * One pack by slug, or by directory path ({@link isPackPath}). A hidden pack is not found unless
 * `includeHidden` (ASSAY_ENABLE_SYSTEM_TEST).
 */
export function loadPack(library: PackLibrary, slug: string, options: LoadPacksOptions = {}): DomainPack {
  if (isPackPath(slug)) return loadPackFromDirectory(library, slug);
  const pack = readLibraryPack(library, slug);
  if (pack.hidden && !options.includeHidden) {
    throw new NotFoundError(`domain pack "${slug}" is hidden; set ASSAY_ENABLE_SYSTEM_TEST=true (config enableSystemTestPack) to use it`, {
      pack: slug,
    });
  }
  return pack;
}

/** Priority descending, then id ascending: the same order on every run and every machine. */
export function compareAreas(left: Pick<AnalysisArea, 'id' | 'priority'>, right: Pick<AnalysisArea, 'id' | 'priority'>): number {
  if (left.priority !== right.priority) return right.priority - left.priority;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

/** A pack's category by id; an unknown id is a NotFoundError listing the known ones. */
export function findCategory(pack: DomainPack, category: string): PackCategory {
  const found = pack.categories.find((candidate) => candidate.id === category);
  if (found) return found;
  const known = pack.categories.map((candidate) => candidate.id).join(', ') || 'none';
  throw new NotFoundError(`pack "${pack.slug}" has no category "${category}" (categories: ${known})`, { pack: pack.slug, category });
}

/**
 * The areas a run of this pack analyses: the base areas plus the category's own, where a category
 * area replaces the base area with the same id; in {@link compareAreas} order.
 */
export function resolveAreas(pack: DomainPack, category?: string): AnalysisArea[] {
  const byId = new Map(pack.areas.map((area) => [area.id, area]));
  if (category !== undefined && category !== '') {
    for (const area of findCategory(pack, category).areas) byId.set(area.id, area);
  }
  return [...byId.values()].sort(compareAreas);
}

/** The category's exploration context for `{{CATEGORY_CONTEXT}}`; '' without a category. */
export function categoryContext(pack: DomainPack, category?: string): string {
  return category === undefined || category === '' ? '' : findCategory(pack, category).exploration_context;
}
