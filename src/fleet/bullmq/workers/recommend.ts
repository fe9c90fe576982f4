/** Handler of `recommend`: recommendations from the run's insights (a no-op when already written). */
import type { RecommendPayload, RecommendResult } from '../queues/index.js';
import { recommend } from '../../../discovery/phases/recommend.js';
import type { JobHandler } from './handler.js';

export const writeRecommendations: JobHandler<RecommendPayload, RecommendResult> = async ({ deps, payload, signal }) => {
  const recommendations = await recommend(deps, payload.runId, signal);
  return { runId: payload.runId, recommendations: recommendations.length };
};
