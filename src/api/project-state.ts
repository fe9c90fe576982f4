/** The project state machine of the discovery-lifecycle seed, as a table and one check. */
import type { ProjectState } from '../domain/index.js';
import { ConflictError } from '../errors/index.js';

/**
 * The seed's transitions: the wizard draft moves to pack generation, generation to done, and the
 * user accepts the generated pack by setting `ready`. `ready` is final: a project never goes back.
 */
export const PROJECT_STATE_TRANSITIONS: Readonly<Record<ProjectState, readonly ProjectState[]>> = {
  pack_generation_pending: ['pack_generation'],
  pack_generation: ['pack_generation_done'],
  pack_generation_done: ['ready'],
  ready: [],
};

export function canTransition(from: ProjectState, to: ProjectState): boolean {
  return from === to || PROJECT_STATE_TRANSITIONS[from].includes(to);
}

export function assertTransition(projectId: string, from: ProjectState, to: ProjectState): void {
  if (canTransition(from, to)) return;
  const allowed = PROJECT_STATE_TRANSITIONS[from];
  throw new ConflictError(
    `project ${projectId} cannot go from state "${from}" to "${to}"${allowed.length > 0 ? ` (from "${from}" only: ${allowed.join(', ')})` : ` ("${from}" is final)`}`,
    { projectId, state: from },
  );
}
