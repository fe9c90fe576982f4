/**
 * What a stored run must hold after any number of crashes, read from the run store alone: every
 * area of its pack, every insight an area lists (in the area and in the result), each exploration
 * step exactly once and contiguous, and no exploration model call recorded twice for one step.
 * Shared by the fleet benchmark and the fleet end-to-end test.
 */
import type { RunStore } from '../../src/store/port.js';

export interface RunIntegrity {
  run_id: string;
  status: string;
  run_type: string | undefined;
  missing_areas: string[];
  /** Insight ids an area lists that are missing from the area's insights or from the stored result. */
  missing_insights: string[];
  /** Insight ids stored more than once across the run's areas. */
  duplicated_insights: string[];
  /** Insights of a completed run without a validation. */
  unvalidated_insights: number;
  steps: number;
  steps_completed: number;
  duplicated_step_numbers: number;
  step_gaps: number;
  /** Exploration model calls recorded for a step number already called for (work redone, e.g. after a kill). */
  repeated_exploration_calls: number;
}

/** `areaIds(packRef)`: the area ids the run's pack defines (all of them when the run selected none). */
export async function checkRunIntegrity(
  store: RunStore,
  runIds: readonly string[],
  areaIds: (packRef: string) => readonly string[],
): Promise<RunIntegrity[]> {
  const report: RunIntegrity[] = [];
  for (const runId of runIds) {
    const [run, steps, result] = await Promise.all([store.getRun(runId), store.listSteps(runId), store.getResult(runId)]);
    if (!run) throw new Error(`run ${runId} vanished from the store`);
    const expectedAreas = run.settings.areas.length > 0 ? run.settings.areas : areaIds(run.settings.pack);
    const stored = new Set(run.areas.map((area) => area.area_id));
    const missingAreas = expectedAreas.filter((id) => !stored.has(id));
    if (result)
      missingAreas.push(
        ...expectedAreas.filter((id) => !result.analysis_log.some((area) => area.area_id === id)).map((id) => `${id} (result)`),
      );
    const resultInsights = new Set(result?.insights.map((insight) => insight.id) ?? []);
    const missingInsights: string[] = [];
    for (const area of run.areas)
      for (const id of area.insight_ids) {
        if (!area.insights.some((insight) => insight.id === id)) missingInsights.push(id);
        else if (result && !resultInsights.has(id)) missingInsights.push(`${id} (result)`);
      }
    const insightIds = run.areas.flatMap((area) => area.insights.map((insight) => insight.id));
    const duplicatedInsights = [...new Set(insightIds.filter((id, index) => insightIds.indexOf(id) !== index))];
    const numbers = steps.map((step) => step.step);
    const distinct = new Set(numbers);
    const highest = numbers.length === 0 ? 0 : Math.max(...numbers);
    const calledSteps = run.telemetry.llm_calls
      .filter((call) => call.phase === 'exploration' && call.step !== undefined)
      .map((call) => call.step);
    report.push({
      run_id: runId,
      status: run.status,
      run_type: run.run_type,
      missing_areas: missingAreas,
      missing_insights: missingInsights,
      duplicated_insights: duplicatedInsights,
      unvalidated_insights:
        run.status === 'completed' ? run.areas.flatMap((area) => area.insights).filter((insight) => !insight.validation).length : 0,
      steps: steps.length,
      steps_completed: run.steps_completed,
      duplicated_step_numbers: numbers.length - distinct.size,
      step_gaps: highest - distinct.size + Math.abs(run.steps_completed - distinct.size),
      repeated_exploration_calls: calledSteps.length - new Set(calledSteps).size,
    });
  }
  return report;
}
