/** Building and updating project documents from API bodies: pack and category checked, the served warehouse enforced, credentials never stored. */
import { randomBytes } from 'node:crypto';
import { redactUrl } from '../../config/index.js';
import { findCategory } from '../../discovery/pack-loader.js';
import type { DomainPack } from '../../discovery/pack-schema.js';
import { projectSchema, type Project } from '../../domain/index.js';
import { AssayError, ValidationError } from '../../errors/index.js';
import { assertTransition } from '../project-state.js';
import { checkWarehouseUrl, type TargetAllowList } from '../security/targets.js';
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
 * One server explores one warehouse (its runtime holds one connection). A project naming another
 * warehouse would silently be run against the served one, so it is refused instead; before that,
 * any other URL must pass the operator's allow-list, so a caller never learns more than the rule.
 */
function servedWarehouseUrl(requested: string | undefined, served: string, allow: TargetAllowList): string {
  const servedRedacted = redactUrl(served);
  if (requested !== undefined && redactUrl(requested) !== servedRedacted) {
    checkWarehouseUrl(requested, allow);
    const message =
      'this server explores the one warehouse its operator configured (ASSAY_WAREHOUSE); leave warehouse.url out to use it, or serve another warehouse from another server';
    throw new ValidationError(message, [{ path: 'warehouse.url', message: 'not the served warehouse' }]);
  }
  return servedRedacted;
}

export function newProject(body: CreateProjectBody, pack: DomainPack, defaults: ProjectDefaults, now: Date): Project {
  checkCategory(pack, body.category);
  const stamp = now.toISOString();
  return projectSchema.parse({
    id: body.id ?? projectIdFromName(body.name),
    name: body.name,
    description: body.description ?? '',
    domain: pack.slug,
    ...(body.category ? { category: body.category } : {}),
    warehouse: {
      url: servedWarehouseUrl(body.warehouse?.url, defaults.warehouse, defaults.allow),
      datasets: body.warehouse?.datasets ?? [],
      ...(body.warehouse?.filter ? { filter: body.warehouse.filter } : {}),
    },
    llm: defaults.llm,
    embedder: defaults.embedder,
    profile: body.profile ?? {},
    state: body.generate_pack?.enabled ? 'pack_generation_pending' : 'ready',
    schema_index: { status: 'pending_indexing' },
    created_at: stamp,
    updated_at: stamp,
  });
}

export function updatedProject(current: Project, body: UpdateProjectBody, pack: DomainPack, now: Date): Project {
  if (body.state !== undefined) assertTransition(current.id, current.state, body.state);
  const category = body.category === undefined ? current.category : (body.category ?? undefined);
  checkCategory(pack, category);
  const { category: _previousCategory, ...rest } = current;
  const filter = body.warehouse?.filter === undefined ? current.warehouse.filter : (body.warehouse.filter ?? undefined);
  const { filter: _previousFilter, ...warehouse } = current.warehouse;
  return projectSchema.parse({
    ...rest,
    ...(category ? { category } : {}),
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.profile !== undefined ? { profile: body.profile } : {}),
    ...(body.state !== undefined ? { state: body.state } : {}),
    warehouse: { ...warehouse, ...(body.warehouse?.datasets ? { datasets: body.warehouse.datasets } : {}), ...(filter ? { filter } : {}) },
    updated_at: now.toISOString(),
  });
}
