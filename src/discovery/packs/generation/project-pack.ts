/**
 * Project-owned packs: a generated draft is frozen on accept as an immutable, numbered version on the
 * project document, and runs name it by reference — `project:<id>@<version>` — so a later edit (a new
 * version) never changes a past or running run. Shipped slugs and pack directories resolve as before.
 */
import { createHash } from 'node:crypto';
import type { PackVersion, Project } from '../../../domain/index.js';
import { AssayError, ConflictError, NotFoundError, ValidationError } from '../../../errors/index.js';
import { loadPackFromFiles, type PackFiles } from '../pack-loader.js';
import type { DomainPack } from '../pack-schema.js';

/** `project:shop-3fa9c1@2`. Project ids are `[A-Za-z0-9_-]`, so neither `:` nor `@` can occur inside one. */
const PROJECT_PACK_REF = /^project:([A-Za-z0-9_-]{1,64})@([1-9]\d*)$/;
/** Hex characters of the content hash kept: 64 bits tell versions of one project apart with room to spare. */
const PACK_HASH_HEX_CHARS = 16;
/** Frozen versions validated and kept in memory; a version never changes, so the cache never goes stale. */
const FROZEN_PACK_CACHE_SIZE = 32;

export function projectPackRef(projectId: string, version: number): string {
  return `project:${projectId}@${version}`;
}

export function parseProjectPackRef(reference: string): { projectId: string; version: number } | undefined {
  const match = PROJECT_PACK_REF.exec(reference);
  return match ? { projectId: match[1] as string, version: Number(match[2]) } : undefined;
}

export function isProjectPackRef(reference: string): boolean {
  return reference.startsWith('project:');
}

/**
 * sha256 of a loaded pack's content (manifest fields and prompt texts, not where it was read from),
 * cut to 16 hex characters: equal packs hash equal wherever they were loaded from.
 */
export function packContentHash(pack: DomainPack): string {
  const { source_dir: _source, ...content } = pack;
  return createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, PACK_HASH_HEX_CHARS);
}

const frozenPacks = new Map<string, DomainPack>();

function loadFrozen(reference: string, version: PackVersion): DomainPack {
  const key = `${reference}#${version.hash}`;
  const cached = frozenPacks.get(key);
  if (cached) return cached;
  const pack = loadPackFromFiles(version.files, reference);
  if (frozenPacks.size >= FROZEN_PACK_CACHE_SIZE) frozenPacks.delete(frozenPacks.keys().next().value as string);
  frozenPacks.set(key, pack);
  return pack;
}

/** The frozen version a `project:<id>@<n>` reference names, from the project document that owns it. */
export function loadProjectPack(reference: string, project: Pick<Project, 'id' | 'pack_versions'>): DomainPack {
  const parsed = parseProjectPackRef(reference);
  if (!parsed) {
    throw new ValidationError(`pack reference "${reference}" is not of the form project:<project id>@<version>`, [
      { path: 'pack', message: 'malformed project pack reference' },
    ]);
  }
  if (parsed.projectId !== project.id) {
    throw new ValidationError(`pack ${reference} belongs to project ${parsed.projectId}, not to project ${project.id}`, [
      { path: 'pack', message: 'another project' },
    ]);
  }
  const version = project.pack_versions.find((candidate) => candidate.version === parsed.version);
  if (!version) {
    const known = project.pack_versions.map((candidate) => candidate.version).join(', ') || 'none';
    throw new NotFoundError(`project ${project.id} has no pack version ${parsed.version} (versions: ${known})`, {
      projectId: project.id,
      pack: reference,
    });
  }
  return loadFrozen(reference, version);
}

/**
 * Any pack reference a run or a project may hold: `project:<id>@<n>` from the owning project's
 * frozen versions, anything else (a shipped slug, a pack directory) through `loadPack`.
 */
export function resolvePack(
  loadPack: (slug: string) => DomainPack,
  reference: string,
  project?: Pick<Project, 'id' | 'pack_versions'>,
): DomainPack {
  if (!isProjectPackRef(reference)) return loadPack(reference);
  if (!project) throw new ValidationError(`pack ${reference} can only be read with its project`, [{ path: 'pack', message: 'no project' }]);
  return loadProjectPack(reference, project);
}

/** Semantic version of frozen version `n`: what the manifest says and what runs record as `pack_version`. */
export function frozenManifestVersion(version: number): string {
  return `${version}.0.0`;
}

/** The files with the manifest's `version` set to the frozen version's, so the pack says which version it is. */
function withManifestVersion(files: PackFiles, version: number): Record<string, string> {
  const manifestText = files['pack.json'];
  if (manifestText === undefined)
    throw new ValidationError('the pack has no pack.json', [{ path: 'files["pack.json"]', message: 'missing' }]);
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestText);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ValidationError(`pack.json is not valid JSON: ${reason}`, [{ path: 'files["pack.json"]', message: 'not JSON' }]);
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest))
    throw new ValidationError('pack.json must hold a JSON object', [{ path: 'files["pack.json"]', message: 'not an object' }]);
  return { ...files, 'pack.json': `${JSON.stringify({ ...manifest, version: frozenManifestVersion(version) }, null, 2)}\n` };
}

export interface FrozenPack {
  project: Project;
  version: PackVersion;
  pack: DomainPack;
}

/**
 * Appends the next numbered version holding `files` (validated by the pack loader: a broken pack is a
 * 400 naming the file and field) and points the project's `domain` at it. Earlier versions stay as
 * they were: runs that named them keep reading exactly what they read.
 */
export function freezePackVersion(project: Project, files: PackFiles, options: { source: PackVersion['source']; now: Date }): FrozenPack {
  const number = project.pack_versions.reduce((highest, candidate) => Math.max(highest, candidate.version), 0) + 1;
  const reference = projectPackRef(project.id, number);
  const frozenFiles = withManifestVersion(files, number);
  let pack: DomainPack;
  try {
    pack = loadPackFromFiles(frozenFiles, reference);
  } catch (error) {
    if (error instanceof AssayError && error.code === 'pack')
      throw new ValidationError(error.message, [{ path: 'files', message: error.message }]);
    throw error;
  }
  const stamp = options.now.toISOString();
  const version: PackVersion = {
    version: number,
    slug: pack.slug,
    hash: packContentHash(pack),
    files: frozenFiles,
    source: options.source,
    accepted_at: stamp,
  };
  // a category the new pack does not have would make every run fail on it
  const { category, ...rest } = project;
  const keepCategory = category !== undefined && pack.categories.some((candidate) => candidate.id === category);
  return {
    project: {
      ...rest,
      ...(keepCategory ? { category } : {}),
      domain: reference,
      pack_version: number,
      pack_versions: [...project.pack_versions, version],
      updated_at: stamp,
    },
    version,
    pack,
  };
}

/**
 * Accepting the draft: `pack_generation_done` → `ready` with the draft frozen as the next version.
 * The draft's proposed profile fills the project's profile only when the project has none.
 */
export function acceptPackDraft(project: Project, now: Date, editedFiles?: PackFiles): FrozenPack {
  if (project.state !== 'pack_generation_done') {
    throw new ConflictError(
      `project ${project.id} is in state "${project.state}": accepting a draft pack needs state "pack_generation_done"`,
      {
        projectId: project.id,
        state: project.state,
      },
    );
  }
  const draft = project.pack_draft;
  if (!draft) throw new ConflictError(`project ${project.id} has no draft pack to accept; generate one first`, { projectId: project.id });
  const frozen = freezePackVersion(project, editedFiles ?? draft.files, { source: editedFiles ? 'edited' : 'generated', now });
  const { pack_draft: _accepted, ...rest } = frozen.project;
  const profile = Object.keys(rest.profile).length > 0 ? rest.profile : draft.profile;
  return { ...frozen, project: { ...rest, profile, state: 'ready' } };
}
