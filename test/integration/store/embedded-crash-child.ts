/**
 * Opens the embedded store in argv[2] and updates run argv[3] until killed: each round adds one step and
 * one LLM call and counts it, and says "done N" once both writes returned.
 */
import { createEmbeddedRunStore } from '../../../src/store/embedded.js';
import { realisticLlmCall, realisticStep } from '../../support/realistic-run.js';

const [dir, runId] = process.argv.slice(2) as [string, string];
const store = createEmbeddedRunStore({ dir });
for (let round = 1; ; round++) {
  await store.upsertStep(realisticStep(runId, round));
  await store.updateRun(runId, (run) => ({
    ...run,
    steps_completed: round,
    phase: round % 10 === 0 ? (run.phase === 'exploration' ? 'analysis' : 'exploration') : run.phase,
    telemetry: { ...run.telemetry, llm_calls: [...run.telemetry.llm_calls, realisticLlmCall(round)] },
  }));
  process.stdout.write(`done ${round}\n`);
}
