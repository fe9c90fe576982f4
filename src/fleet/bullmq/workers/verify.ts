/** Handler of `verify`: grounded verification of one insight; returns its verdict, stored by the coordinator with the stage's others. */
import type { VerifyPayload, VerifyResult } from '../queues/index.js';
import { checkInsight } from '../../../discovery/phases/verify-insight.js';
import type { JobHandler } from './handler.js';

export const verify: JobHandler<VerifyPayload, VerifyResult> = async ({ deps, payload, signal }) => {
  const verdict = await checkInsight(deps, payload.runId, payload.insightId, signal);
  return { runId: payload.runId, insightId: payload.insightId, status: verdict.validation.status, verdict };
};
