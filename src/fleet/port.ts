/**
 * The JobRunner port, seen from whoever starts runs (CLI, HTTP API): launch a created run, ask for
 * its cancellation. In-process (`src/fleet/local`) and BullMQ (`src/fleet/bullmq`) implement it with
 * the same semantics; the run's state is always read from the RunStore.
 */
export interface RunLauncher {
  /** Starts the run's pipeline (prepare → explore → analyze → verify → recommend → finalize). Idempotent per run id. */
  launch(runId: string): Promise<void>;
  /** Marks the run cancelled (in the store) and aborts in-flight work where the runner can. */
  cancel(runId: string): Promise<void>;
  /** Resolves when the runner can take a run now (the queue answers); rejects otherwise. Absent: always ready. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}
