/** The views of a run the API sends besides the full document: a list row and a progress snapshot. */
import { z } from 'zod';
import { runSchema, usageTotalsSchema, type Run } from '../../domain/index.js';
import { totalUsage } from '../../report/usage-totals.js';

export const runSummarySchema = runSchema.pick({
  id: true,
  project_id: true,
  status: true,
  phase: true,
  progress: true,
  run_type: true,
  steps_completed: true,
  settings: true,
  error: true,
  created_at: true,
  started_at: true,
  completed_at: true,
});
export type RunSummary = z.infer<typeof runSummarySchema>;

/** A list row: no areas, insights or telemetry (a list of full runs can weigh megabytes). */
export function runSummary(run: Run): RunSummary {
  return runSummarySchema.parse({ ...run, progress: Math.round(run.progress) });
}

/** What a progress event carries; sent whenever any field changes. */
export const runProgressSchema = z.object({
  run_id: z.string(),
  status: runSchema.shape.status,
  phase: runSchema.shape.phase,
  phase_detail: z.string(),
  /** Percent done, a whole number from 0 to 100. */
  progress: z.number().int().min(0).max(100),
  steps_completed: z.number().int(),
  max_steps: z.number().int(),
  insights_found: z.number().int(),
  tokens: usageTotalsSchema,
  run_type: runSchema.shape.run_type,
  error: z.string().optional(),
});
export type RunProgress = z.infer<typeof runProgressSchema>;

export function runProgress(run: Run): RunProgress {
  return {
    run_id: run.id,
    status: run.status,
    phase: run.phase,
    phase_detail: run.phase_detail,
    progress: Math.round(run.progress),
    steps_completed: run.steps_completed,
    max_steps: run.settings.max_steps,
    insights_found: run.areas.reduce((sum, area) => sum + area.insights.length, 0),
    tokens: totalUsage(run.telemetry),
    ...(run.run_type ? { run_type: run.run_type } : {}),
    ...(run.error ? { error: run.error } : {}),
  };
}
