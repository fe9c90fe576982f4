/**
 * What a key bound to one project may see: that project and its runs, nothing else. Another
 * project's id or run id answers exactly as a missing one does (404, same message), so a bound key
 * cannot learn which ids exist.
 */
import type { Context } from 'hono';
import { requireProject } from '../../discovery/context.js';
import type { Project, Run } from '../../domain/index.js';
import { ForbiddenError, NotFoundError } from '../../errors/index.js';
import type { RunStore } from '../../store/port.js';
import { principalOf } from './middleware.js';

type Store = { store: RunStore };

function boundProject(c: Context): string | undefined {
  return principalOf(c)?.projectId;
}

export async function visibleProject(c: Context, deps: Store, projectId: string): Promise<Project> {
  const bound = boundProject(c);
  if (bound !== undefined && bound !== projectId) throw new NotFoundError(`project ${projectId} does not exist`, { projectId });
  return requireProject(deps, projectId);
}

export async function visibleRun(c: Context, deps: Store, runId: string): Promise<Run> {
  const run = await deps.store.getRun(runId);
  const bound = boundProject(c);
  if (!run || (bound !== undefined && run.project_id !== bound)) throw new NotFoundError(`run ${runId} does not exist`, { runId });
  return run;
}

/** Only the projects a key may see. */
export function visibleProjects(c: Context, projects: readonly Project[]): Project[] {
  const bound = boundProject(c);
  return bound === undefined ? [...projects] : projects.filter((project) => project.id === bound);
}

/** A key bound to a project may not act outside it (creating projects, managing keys). */
export function requireUnbound(c: Context, what: string): void {
  const bound = boundProject(c);
  if (bound !== undefined) throw new ForbiddenError(`${what} needs a key that is not bound to a project (this key is bound to ${bound})`);
}
