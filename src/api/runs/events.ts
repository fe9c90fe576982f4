/**
 * Server-sent progress of one run: the server polls the store and sends a `progress` event whenever
 * the run's snapshot changes, a comment line as heartbeat while nothing does (so proxies keep the
 * connection open), and an `end` event when the run is terminal; then the stream closes. Polling
 * stops as soon as the client goes away.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { requireRun } from '../../discovery/context.js';
import { isTerminal } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import type { RunStore } from '../../store/port.js';
import { runProgress } from './run-summary.js';

/** How often the store is read for changes (the brief's ~500 ms: fast enough for a progress bar, cheap for the store). */
export const EVENTS_POLL_INTERVAL_MS = 500;
/** A heartbeat comment after this long without an event; below the usual 30-60 s proxy idle timeouts. */
export const EVENTS_HEARTBEAT_MS = 15_000;

export interface RunEventsOptions {
  store: RunStore;
  logger: Logger;
  /** @defaultValue EVENTS_POLL_INTERVAL_MS */
  pollIntervalMs?: number;
  /** @defaultValue EVENTS_HEARTBEAT_MS */
  heartbeatMs?: number;
  /** Called once when the stream ends, however it ends (the per-key stream count is released here). */
  onClose?: () => void;
}

export async function streamRunEvents(c: Context, runId: string, options: RunEventsOptions): Promise<Response> {
  // a missing run is a plain 404, before any stream is opened
  await requireRun(options, runId);
  const pollIntervalMs = options.pollIntervalMs ?? EVENTS_POLL_INTERVAL_MS;
  const heartbeatMs = options.heartbeatMs ?? EVENTS_HEARTBEAT_MS;
  return streamSSE(
    c,
    async (stream) => {
      try {
        let open = true;
        stream.onAbort(() => {
          open = false;
        });
        let lastSent = '';
        let lastWriteAt = Date.now();
        let eventId = 0;
        while (open && !stream.closed) {
          const run = await options.store.getRun(runId);
          if (!run) {
            await stream.writeSSE({
              event: 'error',
              data: JSON.stringify({ code: 'not_found', message: `run ${runId} no longer exists` }),
            });
            return;
          }
          const snapshot = JSON.stringify(runProgress(run));
          if (snapshot !== lastSent) {
            eventId += 1;
            await stream.writeSSE({ event: 'progress', id: String(eventId), data: snapshot });
            lastSent = snapshot;
            lastWriteAt = Date.now();
          } else if (Date.now() - lastWriteAt >= heartbeatMs) {
            await stream.write(': heartbeat\n\n');
            lastWriteAt = Date.now();
          }
          if (isTerminal(run.status)) {
            eventId += 1;
            await stream.writeSSE({
              event: 'end',
              id: String(eventId),
              data: JSON.stringify({ run_id: run.id, status: run.status, run_type: run.run_type ?? null }),
            });
            return;
          }
          await stream.sleep(pollIntervalMs);
        }
      } finally {
        options.onClose?.();
      }
    },
    async (error, stream) => {
      options.logger.warn({ runId, err: error }, 'run event stream failed');
      await stream.writeSSE({
        event: 'error',
        data: JSON.stringify({ code: 'internal', message: 'the event stream failed: see the server log' }),
      });
    },
  );
}
