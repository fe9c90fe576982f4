/**
 * Feedback reaches the engine, not only the prompt: a user dislikes the top insight of a run, and the next
 * run of the project mines the same fact again but ranks it down (a fifth of its score, with the reason on
 * the finding and in the run's notes), so the area's next insight leads with something else.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FEEDBACK_WEIGHTS } from '../../../src/discovery/mining/feedback.js';
import { feedbackSchema } from '../../../src/domain/index.js';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('when a user dislikes an insight', () => {
  it('ranks the same fact down in the next run, says why, and leads the area with another finding', async () => {
    harness = await createHarness(createOfflineAnalyst());
    const first = await harness.newRun({ maxSteps: 4 });
    const firstResult = await runDiscoveryLocally(harness.deps, first.id, { concurrency: 1 });
    const disliked = firstResult.insights.find((insight) => insight.claim !== undefined && insight.validation?.status === 'confirmed');
    expect(disliked, 'the first run has a confirmed insight with a claim').toBeDefined();
    if (!disliked?.claim) return;
    await harness.deps.store.upsertFeedback(
      feedbackSchema.parse({
        id: 'fb-1',
        project_id: harness.project.id,
        run_id: first.id,
        target_type: 'insight',
        target_id: disliked.id,
        rating: 'dislike',
        created_at: harness.deps.now().toISOString(),
      }),
    );

    const second = await harness.newRun({ maxSteps: 4 });
    const secondResult = await runDiscoveryLocally(harness.deps, second.id, { concurrency: 1 });
    const mining = (await harness.deps.store.getRun(second.id))?.mining;
    const same = mining?.findings.find(
      (finding) =>
        JSON.stringify(finding.claim.segment) === JSON.stringify(disliked.claim?.segment) &&
        finding.claim.metric.label === disliked.claim?.metric.label,
    );
    expect(same?.feedback).toEqual({ weight: FEEDBACK_WEIGHTS.dislikedFact, insights: [`disliked ${disliked.id}`] });
    expect(mining?.notes.some((note) => note.startsWith(`${same?.id} weighted ×0.20 by feedback (disliked ${disliked.id})`))).toBe(true);

    const lead = secondResult.insights.find((insight) => insight.analysis_area === disliked.analysis_area);
    expect(lead?.claim).toBeDefined();
    expect(JSON.stringify([lead?.claim?.metric, lead?.claim?.segment])).not.toBe(
      JSON.stringify([disliked.claim.metric, disliked.claim.segment]),
    );
  });
});
