/** Handler of `mine`: the run's mining stage (a no-op when its findings are already stored). */
import type { MinePayload, MineResult } from '../queues/index.js';
import { mineRun } from '../../../discovery/phases/mine-run.js';
import type { JobHandler } from './handler.js';

export const mine: JobHandler<MinePayload, MineResult> = async ({ deps, payload, signal }) => {
  const state = await mineRun(deps, payload.runId, signal);
  return { runId: payload.runId, status: state.status, findings: state.findings.length, queries: state.queries };
};
