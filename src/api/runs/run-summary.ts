/** The views of a run the API sends besides the full document: a list row and a progress snapshot. */
import type { Run, RunStatus, UsageTotals } from '../../domain/index.js';
import { totalUsage } from '../../report/usage-totals.js';

export interface RunSummary {
  id: string;
  project_id: string;
  status: RunStatus;
  phase: Run['phase'];
  progress: number;
  run_type?: Run['run_type'];
  steps_completed: number;
  settings: Run['settings'];
  error?: string;
  created_at: string;
  started_at?: string;
  completed_at?: string;
}

/** A list row: no areas, insights or telemetry (a list of full runs can weigh megabytes). */
export function runSummary(run: Run): RunSummary {
  return {
    id: run.id,
    project_id: run.project_id,
    status: run.status,
    phase: run.phase,
    progress: run.progress,
    ...(run.run_type ? { run_type: run.run_type } : {}),
    steps_completed: run.steps_completed,
    settings: run.settings,
    ...(run.error ? { error: run.error } : {}),
    created_at: run.created_at,
    ...(run.started_at ? { started_at: run.started_at } : {}),
    ...(run.completed_at ? { completed_at: run.completed_at } : {}),
  };
}

/** What a progress event carries; sent whenever any field changes. */
export interface RunProgress {
  run_id: string;
  status: RunStatus;
  phase: Run['phase'];
  phase_detail: string;
  progress: number;
  steps_completed: number;
  max_steps: number;
  insights_found: number;
  tokens: Pick<UsageTotals, 'input_tokens' | 'output_tokens' | 'cost_usd' | 'calls'>;
  run_type?: Run['run_type'];
  error?: string;
}

export function runProgress(run: Run): RunProgress {
  const usage = totalUsage(run.telemetry);
  return {
    run_id: run.id,
    status: run.status,
    phase: run.phase,
    phase_detail: run.phase_detail,
    progress: run.progress,
    steps_completed: run.steps_completed,
    max_steps: run.settings.max_steps,
    insights_found: run.areas.reduce((sum, area) => sum + area.insights.length, 0),
    tokens: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cost_usd: usage.cost_usd, calls: usage.calls },
    ...(run.run_type ? { run_type: run.run_type } : {}),
    ...(run.error ? { error: run.error } : {}),
  };
}
