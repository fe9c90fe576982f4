/** Before a command looks at "runs in progress", runs whose `assay run` process is gone are marked, and the person is told. */
import type { Runtime } from '../composition.js';
import { markInterruptedRuns } from '../fleet/local/interrupted-run.js';
import { leaseDirOf } from '../fleet/local/run-lease.js';

export async function settleInterruptedRuns(runtime: Runtime): Promise<void> {
  const marked = await markInterruptedRuns(runtime, {
    leaseDir: leaseDirOf(runtime.config.dataDir),
    storeIsExclusive: runtime.config.store === 'embedded',
  });
  for (const run of marked)
    process.stderr.write(`note: run ${run.runId} was left running by a process that is gone; it is now marked failed (${run.error})\n`);
}
