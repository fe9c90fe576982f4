/** Handler of `verify`: grounded verification of one insight (a no-op when it is already validated). */
import type { VerifyPayload, VerifyResult } from '../queues/index.js';
import { verifyInsight } from '../src/discovery/phases/verify-insight.js';
import type { JobHandler } from './handler.js';

export const verify: JobHandler<VerifyPayload, VerifyResult> = async ({ deps, payload, signal }) => {
  const validation = await verifyInsight(deps, payload.runId, payload.insightId, signal);
  return { runId: payload.runId, insightId: payload.insightId, status: validation.status };
};
