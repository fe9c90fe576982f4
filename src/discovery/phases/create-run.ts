/** Creating a run document: validated settings, a run id safe for job ids, status pending. */
import { randomBytes } from 'node:crypto';
import { runSchema, type Project, type Run, type RunSettings } from '../../domain/index.js';
import { ConflictError, ValidationError } from '../../errors/index.js';
import type { RunStore } from '../../store/port.js';

export interface NewRunRequest {
  maxSteps: number;
  minSteps: number;
  areas?: string[];
  llm: string;
  pack: string;
  category?: string | undefined;
  analysisBudgetTokens: number;
}

/** `run-20261123-091500-a1b2c3`: sortable, unique, and free of `:` (BullMQ job ids embed it). */
export function newRunId(now: Date, random: () => string = () => randomBytes(3).toString('hex')): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `run-${stamp}-${random()}`;
}

export async function createRun(store: RunStore, project: Project, request: NewRunRequest, now: Date, runId = newRunId(now)): Promise<Run> {
  if (request.minSteps > request.maxSteps) {
    throw new ValidationError(`min_steps (${request.minSteps}) must not exceed max_steps (${request.maxSteps})`, [
      { path: 'min_steps', message: 'greater than max_steps' },
    ]);
  }
  const active = (await store.listRuns(project.id, { limit: 20 })).find((run) => run.status === 'pending' || run.status === 'running');
  if (active)
    throw new ConflictError(`project ${project.id} already has run ${active.id} in progress (status ${active.status}); cancel it or wait`, {
      runId: active.id,
    });
  const settings: RunSettings = {
    max_steps: request.maxSteps,
    min_steps: request.minSteps,
    areas: request.areas ?? [],
    llm: request.llm,
    pack: request.pack,
    ...(request.category ? { category: request.category } : {}),
    analysis_budget_tokens: request.analysisBudgetTokens,
  };
  const stamp = now.toISOString();
  return store.createRun(
    runSchema.parse({
      id: runId,
      project_id: project.id,
      status: 'pending',
      phase: 'prepare',
      settings,
      created_at: stamp,
      updated_at: stamp,
    }),
  );
}
