/** Feedback on a run's insights, recommendations or steps: the target must exist in the run; one feedback per target (upsert). */
import { createHash } from 'node:crypto';
import type { ExplorationStep, Feedback, Run } from '../../domain/index.js';
import { NotFoundError } from '../../errors/index.js';
import type { FeedbackBody } from '../schemas.js';

export function targetExists(run: Run, steps: readonly ExplorationStep[], body: Pick<FeedbackBody, 'target_type' | 'target_id'>): boolean {
  switch (body.target_type) {
    case 'insight':
      return run.areas.some((area) => area.insights.some((insight) => insight.id === body.target_id));
    case 'recommendation':
      return run.recommendations.some((recommendation) => recommendation.id === body.target_id);
    case 'exploration_step':
      return steps.some((step) => String(step.step) === body.target_id);
  }
}

/** Same id for the same (run, target): a second rating replaces the first. */
export function feedbackId(runId: string, targetType: string, targetId: string): string {
  return `fb-${createHash('sha256').update(`${runId}\u0000${targetType}\u0000${targetId}`).digest('hex').slice(0, 20)}`;
}

export function feedbackFor(run: Run, steps: readonly ExplorationStep[], body: FeedbackBody, now: Date): Feedback {
  if (!targetExists(run, steps, body)) {
    throw new NotFoundError(`run ${run.id} has no ${body.target_type.replace('_', ' ')} "${body.target_id}"`, { runId: run.id });
  }
  return {
    id: feedbackId(run.id, body.target_type, body.target_id),
    project_id: run.project_id,
    run_id: run.id,
    target_type: body.target_type,
    target_id: body.target_id,
    rating: body.rating,
    comment: body.comment ?? '',
    created_at: now.toISOString(),
  };
}
