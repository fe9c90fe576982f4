/** Building and updating project documents from API bodies: pack and category checked, warehouses and models on the allow-list, credentials only by reference. */
import { randomBytes } from 'node:crypto';
import { redactUrl } from '../../config/index.js';
import { findCategory } from '../../discovery/packs/pack-loader.js';
import type { DomainPack } from '../../discovery/packs/pack-schema.js';
import { projectSchema, type Project } from '../../domain/index.js';
import { AssayError, ValidationError } from '../../errors/index.js';
import { parseLlmSpec } from '../../llm/factory.js';
import { assertTransition } from '../project-state.js';
import { checkModelSpec, checkWarehouseUrl, type TargetAllowList } from '../security/targets.js';
import type { CreateProjectBody, UpdateProjectBody } from '../schemas.js';

export interface ProjectDefaults {
  /** The warehouse this server explores (may hold credentials: only its redacted form is stored or shown). */
  warehouse: string;
  llm: string;
  embedder: string;
  /** Where API callers may point (config `api.allow`). */
  allow: TargetAllowList;
}

/** `Shop Analytics` → `shop-analytics-3fa9c1`: readable, unique enough, and a safe id. */
export function projectIdFromName(name: string, random: () => string = () => randomBytes(3).toString('hex')): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'project';
  return `${slug}-${random()}`;
}

/** The pack, or a 400 on `field` naming the packs problem (unknown slug, broken pack). */
export function loadPackFor(loadPack: (slug: string) => DomainPack, slug: string, field: string): DomainPack {
  try {
    return loadPack(slug);
  } catch (error) {
    if (error instanceof AssayError && (error.code === 'pack' || error.code === 'not_found'))
      throw new ValidationError(error.message, [{ path: field, message: error.message }]);
    throw error;
  }
}

function checkCategory(pack: DomainPack, category: string | undefined): void {
  if (category === undefined) return;
  try {
    findCategory(pack, category);
  } catch (error) {
    if (error instanceof AssayError && error.code === 'not_found')
      throw new ValidationError(error.message, [{ path: 'category', message: error.message }]);
    throw error;
  }
}

/**
 * The warehouse URL a project stores. Left out or equal to the served warehouse (compared without
 * credentials): the served one, redacted. Anything else must pass the operator's allow-list and
 * carry no password (that belongs in `secrets.warehouse_password`), so a stored URL never holds one.
 */
export function projectWarehouseUrl(
  requested: string | undefined,
  served: string,
  allow: TargetAllowList,
  field = 'warehouse.url',
): string {
  const servedRedacted = redactUrl(served);
  if (requested === undefined || redactUrl(requested) === servedRedacted) return servedRedacted;
  checkWarehouseUrl(requested, allow, field);
  const trimmed = requested.trim();
  if (trimmed.startsWith('postgres://') || trimmed.startsWith('postgresql://')) {
    const parsed = new URL(trimmed);
    if (parsed.password) {
      const message =
        'a password in the warehouse URL would be stored: set secrets.warehouse_password to a secret reference (secret:NAME) instead';
      throw new ValidationError(message, [{ path: field, message: 'contains a password' }]);
    }
  }
  return trimmed;
}

/** A model or embedder spec from a request: well-formed, and on an allowed host when it names a URL. */
function projectModelSpec(spec: string, allow: TargetAllowList, field: string, kind: 'llm' | 'embedder'): string {
  if (kind === 'llm') {
    try {
      parseLlmSpec(spec);
    } catch (error) {
      if (error instanceof AssayError) throw new ValidationError(error.message, [{ path: field, message: error.message }]);
      throw error;
    }
  }
  checkModelSpec(spec, allow, field);
  return spec;
}

function checkSecretsFit(project: Pick<Project, 'warehouse' | 'secrets'>): void {
  if (project.secrets.warehouse_password && !/^postgres(ql)?:\/\//.test(project.warehouse.url)) {
    throw new ValidationError('secrets.warehouse_password is only used by PostgreSQL warehouses', [
      { path: 'secrets.warehouse_password', message: 'the warehouse is not PostgreSQL' },
    ]);
  }
}

/** True when a create or update body names its own warehouse, models, embedder or secrets: only admin keys may. */
export function namesOwnTargets(body: CreateProjectBody | UpdateProjectBody, served: string): boolean {
  const url = body.warehouse?.url;
  return (
    (url !== undefined && redactUrl(url) !== redactUrl(served)) ||
    body.llm !== undefined ||
    body.fast_llm !== undefined ||
    body.embedder !== undefined ||
    body.secrets !== undefined
  );
}

export function newProject(body: CreateProjectBody, pack: DomainPack, defaults: ProjectDefaults, now: Date): Project {
  checkCategory(pack, body.category);
  const stamp = now.toISOString();
  const project = projectSchema.parse({
    id: body.id ?? projectIdFromName(body.name),
    name: body.name,
    description: body.description ?? '',
    domain: pack.slug,
    ...(body.category ? { category: body.category } : {}),
    warehouse: {
      url: projectWarehouseUrl(body.warehouse?.url, defaults.warehouse, defaults.allow),
      datasets: body.warehouse?.datasets ?? [],
      ...(body.warehouse?.filter ? { filter: body.warehouse.filter } : {}),
    },
    llm: body.llm === undefined ? defaults.llm : projectModelSpec(body.llm, defaults.allow, 'llm', 'llm'),
    ...(body.fast_llm === undefined ? {} : { fast_llm: projectModelSpec(body.fast_llm, defaults.allow, 'fast_llm', 'llm') }),
    embedder: body.embedder === undefined ? defaults.embedder : projectModelSpec(body.embedder, defaults.allow, 'embedder', 'embedder'),
    secrets: body.secrets ?? {},
    profile: body.profile ?? {},
    state: body.generate_pack?.enabled ? 'pack_generation_pending' : 'ready',
    schema_index: { status: 'pending_indexing' },
    created_at: stamp,
    updated_at: stamp,
  });
  checkSecretsFit(project);
  return project;
}

export function updatedProject(
  current: Project,
  body: UpdateProjectBody,
  pack: DomainPack,
  now: Date,
  defaults: Pick<ProjectDefaults, 'warehouse' | 'allow'>,
): Project {
  if (body.state !== undefined) assertTransition(current.id, current.state, body.state);
  const category = body.category === undefined ? current.category : (body.category ?? undefined);
  checkCategory(pack, category);
  const { category: _previousCategory, ...rest } = current;
  const filter = body.warehouse?.filter === undefined ? current.warehouse.filter : (body.warehouse.filter ?? undefined);
  const { filter: _previousFilter, ...warehouse } = current.warehouse;
  const { fast_llm: previousFast, ...restWithoutFast } = rest;
  const fastLlm =
    body.fast_llm === undefined
      ? previousFast
      : body.fast_llm === null
        ? undefined
        : projectModelSpec(body.fast_llm, defaults.allow, 'fast_llm', 'llm');
  const url =
    body.warehouse?.url === undefined ? warehouse.url : projectWarehouseUrl(body.warehouse.url, defaults.warehouse, defaults.allow);
  const project = projectSchema.parse({
    ...restWithoutFast,
    ...(fastLlm === undefined ? {} : { fast_llm: fastLlm }),
    ...(body.llm !== undefined ? { llm: projectModelSpec(body.llm, defaults.allow, 'llm', 'llm') } : {}),
    ...(body.embedder !== undefined ? { embedder: projectModelSpec(body.embedder, defaults.allow, 'embedder', 'embedder') } : {}),
    ...(body.secrets !== undefined ? { secrets: body.secrets } : {}),
    ...(category ? { category } : {}),
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.profile !== undefined ? { profile: body.profile } : {}),
    ...(body.state !== undefined ? { state: body.state } : {}),
    warehouse: {
      ...warehouse,
      url,
      ...(body.warehouse?.datasets ? { datasets: body.warehouse.datasets } : {}),
      ...(filter ? { filter } : {}),
    },
    updated_at: now.toISOString(),
  });
  checkSecretsFit(project);
  return project;
}
