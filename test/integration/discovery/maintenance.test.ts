import { afterEach, describe, expect, it } from 'vitest';
import { runCollectionName } from '../../../src/compaction/run-step-index.js';
import { runsInFlight, sweepRunCollections } from '../../../src/discovery/phases/maintenance.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { scriptedBrain } from './scripted-brain.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the start-up sweep of run collections', () => {
  it('drops the collection of a run that was killed and finished as failed, and keeps the one of a run in flight', async () => {
    harness = await createHarness(scriptedBrain({ exploration: {} }).brain);
    const { vectorIndex, store } = harness.deps;
    const killed = await harness.newRun();
    await vectorIndex.ensureCollection(runCollectionName(killed.id), harness.deps.embedder.dimensions);
    await store.updateRun(killed.id, (run) => ({ ...run, status: 'failed', error: 'the run could not be recovered' }));
    const live = await harness.newRun();
    await vectorIndex.ensureCollection(runCollectionName(live.id), harness.deps.embedder.dimensions);
    await store.updateRun(live.id, (run) => ({ ...run, status: 'running' }));

    expect((await runsInFlight(store)).map((run) => run.id)).toEqual([live.id]);
    // judged by the wall clock the collections were created on, a moment later
    const dropped = await sweepRunCollections({ ...harness.deps, now: () => new Date(Date.now() + 1_000) }, { olderThanMs: 0 });
    expect(dropped).toEqual([runCollectionName(killed.id)]);
    const left = (await vectorIndex.listCollections()).map((collection) => collection.name);
    expect(left).toContain(runCollectionName(live.id));
    expect(left).not.toContain(runCollectionName(killed.id));
  });
});
