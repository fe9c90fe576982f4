/** Handler of `explore`: one exploration step (stored, and embedded into the run's step index, before it returns). */
import type { ExplorePayload, ExploreResult } from '../queues/index.js';
import { exploreStep } from '../../../discovery/phases/explore-step.js';
import type { JobHandler } from './handler.js';

export const explore: JobHandler<ExplorePayload, ExploreResult> = async ({ deps, payload, signal }) => {
  const outcome = await exploreStep(deps, payload.runId, payload.step, signal);
  return { runId: payload.runId, step: outcome.step.step, action: outcome.step.action, finished: outcome.finished };
};
