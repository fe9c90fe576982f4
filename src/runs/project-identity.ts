/**
 * A project is what a run explores: one warehouse with one pack. Two runs on the same warehouse and
 * pack share a project (and with it previous context and feedback); a run on another warehouse
 * never re-points an existing project. Warehouses are compared by what they connect to, never by
 * credentials: `duckdb:` files by absolute path, PostgreSQL by user, host, port and database.
 */
import { createHash } from 'node:crypto';
import { basename, extname } from 'node:path';
import type { Project } from '../domain/index.js';
import { ConflictError } from '../errors/index.js';
import { describeWarehouseTarget, parseWarehouseUrl } from '../warehouse/warehouse-url.js';

/** The warehouse as its connection target, without credentials: `duckdb:/abs/file.duckdb`, `postgres://user@host:5432/db`. */
export function warehouseIdentity(url: string): string {
  return describeWarehouseTarget(parseWarehouseUrl(url));
}

/** The warehouse URL with a DuckDB path made absolute: what a project records, whatever directory the next run starts in. */
export function absoluteWarehouseUrl(url: string): string {
  const target = parseWarehouseUrl(url);
  return target.engine === 'duckdb' ? `duckdb:${target.path}` : url;
}

export interface ProjectTarget {
  /** `warehouseIdentity` of the warehouse. */
  warehouse: string;
  /** The pack reference the project's runs load (a shipped slug or a pack directory's absolute path). */
  pack: string;
}

export function projectTargetOf(project: Pick<Project, 'warehouse' | 'domain'>): ProjectTarget {
  return { warehouse: warehouseIdentity(project.warehouse.url), pack: project.domain };
}

function sameTarget(left: ProjectTarget, right: ProjectTarget): boolean {
  return left.warehouse === right.warehouse && left.pack === right.pack;
}

/** Lower-case words of a name, joined by dashes, as a project id allows. */
function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24)
    .replace(/-+$/, '');
}

/** A short readable name of the warehouse: the DuckDB file's name (or its first loaded file's), or the database's. */
export function warehouseStem(identity: string): string {
  const target = parseWarehouseUrl(identity);
  switch (target.engine) {
    case 'postgres':
    case 'mysql':
    case 'clickhouse':
      return slugOf(target.database) || target.engine;
    case 'bigquery':
      return slugOf(target.datasets[0] ?? target.project) || 'bigquery';
    case 'snowflake':
      return slugOf(`${target.database}-${target.schema}`) || 'snowflake';
    case 'duckdb': {
      const file = target.path === ':memory:' ? target.files?.[0] : target.path;
      if (file === undefined) return 'memory';
      return slugOf(basename(file, extname(file)).replace(/\*/g, '')) || 'duckdb';
    }
  }
}

/**
 * The id of a new project for `target`: readable (pack and warehouse name) and unique per warehouse
 * (a hash of its identity), so `shop.duckdb` in two directories are two projects.
 */
export function newProjectId(packSlug: string, target: ProjectTarget): string {
  const hash = createHash('sha256').update(`${target.warehouse}\n${target.pack}`).digest('hex').slice(0, 6);
  const stem = warehouseStem(target.warehouse);
  const pack = slugOf(packSlug) || 'pack';
  return stem === pack ? `${pack}-${hash}` : `${pack}-${stem}-${hash}`;
}

/** The existing project that explores `target`, oldest first when (from older versions) there are several. */
export function findProjectFor(projects: readonly Project[], target: ProjectTarget): Project | undefined {
  const matching = projects.filter((project) => {
    try {
      return sameTarget(projectTargetOf(project), target);
    } catch {
      // a project whose stored URL no longer parses explores nothing this run could name
      return false;
    }
  });
  return matching.sort((left, right) => left.created_at.localeCompare(right.created_at))[0];
}

/** Refuses a run on `project` that names another warehouse or pack: a project is never re-pointed. */
export function assertProjectTarget(project: Project, target: ProjectTarget): void {
  const current = projectTargetOf(project);
  if (sameTarget(current, target)) return;
  const differs = current.warehouse !== target.warehouse ? 'warehouse' : 'pack';
  const [was, given] = differs === 'warehouse' ? [current.warehouse, target.warehouse] : [current.pack, target.pack];
  throw new ConflictError(
    `project ${project.id} explores ${current.warehouse} with pack ${current.pack}, but this run names ${differs} ${given} (not ${was}): a project is never re-pointed. Leave out --project to use the project of this ${differs}, or name a new project`,
    { projectId: project.id },
  );
}
