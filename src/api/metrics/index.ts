/**
 * Prometheus metrics for the API process: HTTP requests, runs started and finished, and the LLM
 * tokens and cost of finished runs (read from their telemetry, once per run), plus BullMQ queue
 * depth when queues are given. Anything that sees a run settle (the API, the local launcher, a
 * worker) can call `recordFinishedRun`; counting is idempotent per run id.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isTerminal, type Run } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import type { RunStore } from '../../store/port.js';

/** What the queue-depth gauge needs from a queue (BullMQ's `Queue` has it). */
export interface QueueDepthSource {
  readonly name: string;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
}

/** BullMQ job states exported per queue; `waiting` is what KEDA scales on. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'] as const;

/** Request latency buckets (seconds): API calls are milliseconds; report rendering of a big run can take a second. */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Run ids remembered as counted; older ones are forgotten (a run settles once, so only a late duplicate could slip through). */
const COUNTED_RUNS_REMEMBERED = 10_000;
/** Run duration buckets (seconds): a demo run takes seconds, a real one tens of minutes. */
const RUN_DURATION_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1_200, 3_600, 7_200];

export interface ApiMetrics {
  readonly registry: Registry;
  observeHttpRequest(request: { method: string; route: string; status: number; seconds: number }): void;
  /** One failed authentication: `rejected` (401) or `throttled` (429 while the caller is blocked). */
  authFailure(outcome: 'rejected' | 'throttled'): void;
  /** A run was launched by this process; its finish is counted when it settles. */
  runStarted(runId: string): void;
  /** Counts a settled run once: status, duration, tokens and cost by phase and model. */
  recordFinishedRun(run: Run): void;
  /** Re-reads runs launched here that have not settled yet, and the queue depths. Called before every scrape. */
  refresh(): Promise<void>;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
  readonly contentType: string;
}

export interface CreateApiMetricsOptions {
  store: Pick<RunStore, 'getRun'>;
  queues?: readonly QueueDepthSource[];
  logger?: Logger;
  /** Node process metrics (heap, event loop lag, …). @defaultValue true */
  processMetrics?: boolean;
}

export function createApiMetrics(options: CreateApiMetricsOptions): ApiMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'assay_' });
  const registers = [registry];

  const httpRequests = new Counter({
    name: 'assay_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'assay_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers,
  });
  const authFailures = new Counter({
    name: 'assay_api_auth_failures_total',
    help: 'Failed API authentications: rejected (401, counted towards a block) or throttled (429, refused while blocked)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const runsStarted = new Counter({ name: 'assay_runs_started_total', help: 'Discovery runs launched by this process', registers });
  const runsFinished = new Counter({
    name: 'assay_runs_finished_total',
    help: 'Discovery runs settled, by status and run type',
    labelNames: ['status', 'run_type'] as const,
    registers,
  });
  const runDuration = new Histogram({
    name: 'assay_run_duration_seconds',
    help: 'Wall time of settled runs',
    labelNames: ['status'] as const,
    buckets: RUN_DURATION_BUCKETS,
    registers,
  });
  const llmTokens = new Counter({
    name: 'assay_llm_tokens_total',
    help: 'LLM tokens of settled runs',
    labelNames: ['direction', 'phase', 'model'] as const,
    registers,
  });
  const llmCachedTokens = new Counter({
    name: 'assay_llm_cache_tokens_total',
    help: 'Input tokens of settled runs read from (kind=read) or written to (kind=write) the provider prompt cache; part of the input tokens',
    labelNames: ['kind', 'phase', 'model'] as const,
    registers,
  });
  const llmCost = new Counter({
    name: 'assay_llm_cost_usd_total',
    help: 'LLM cost in US dollars of settled runs',
    labelNames: ['phase', 'model'] as const,
    registers,
  });
  const llmCalls = new Counter({
    name: 'assay_llm_calls_total',
    help: 'LLM calls of settled runs',
    labelNames: ['phase', 'model'] as const,
    registers,
  });
  const runsInFlight = new Gauge({ name: 'assay_runs_in_flight', help: 'Runs launched by this process that have not settled', registers });
  const queueJobs = new Gauge({
    name: 'assay_queue_jobs',
    help: 'BullMQ jobs per queue and state',
    labelNames: ['queue', 'state'] as const,
    registers,
  });

  const watched = new Set<string>();
  const counted = new Set<string>();

  function recordFinishedRun(run: Run): void {
    watched.delete(run.id);
    runsInFlight.set(watched.size);
    if (counted.has(run.id) || !isTerminal(run.status)) return;
    counted.add(run.id);
    if (counted.size > COUNTED_RUNS_REMEMBERED) counted.delete(counted.values().next().value as string);
    runsFinished.inc({ status: run.status, run_type: run.run_type ?? 'none' });
    if (run.started_at && run.completed_at) {
      runDuration.observe({ status: run.status }, Math.max(0, (Date.parse(run.completed_at) - Date.parse(run.started_at)) / 1000));
    }
    for (const [phase, byModel] of Object.entries(run.telemetry.usage_by_phase)) {
      for (const [model, totals] of Object.entries(byModel)) {
        llmTokens.inc({ direction: 'input', phase, model }, totals.input_tokens);
        llmTokens.inc({ direction: 'output', phase, model }, totals.output_tokens);
        llmCachedTokens.inc({ kind: 'read', phase, model }, totals.cache_read_tokens ?? 0);
        llmCachedTokens.inc({ kind: 'write', phase, model }, totals.cache_write_tokens ?? 0);
        llmCost.inc({ phase, model }, totals.cost_usd);
        llmCalls.inc({ phase, model }, totals.calls);
      }
    }
  }

  async function refreshQueues(): Promise<void> {
    await Promise.all(
      (options.queues ?? []).map(async (queue) => {
        try {
          const counts = await queue.getJobCounts(...QUEUE_STATES);
          for (const state of QUEUE_STATES) queueJobs.set({ queue: queue.name, state }, counts[state] ?? 0);
        } catch (error) {
          options.logger?.warn({ queue: queue.name, err: error }, 'could not read queue depth');
        }
      }),
    );
  }

  return {
    registry,
    contentType: registry.contentType,
    authFailure(outcome) {
      authFailures.inc({ outcome });
    },
    observeHttpRequest({ method, route, status, seconds }) {
      const labels = { method, route, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    runStarted(runId) {
      runsStarted.inc();
      watched.add(runId);
      runsInFlight.set(watched.size);
    },
    recordFinishedRun,
    async refresh() {
      await Promise.all(
        [...watched].map(async (runId) => {
          const run = await options.store.getRun(runId);
          if (!run) {
            watched.delete(runId);
            return;
          }
          if (isTerminal(run.status)) recordFinishedRun(run);
        }),
      );
      runsInFlight.set(watched.size);
      await refreshQueues();
    },
    render() {
      return registry.metrics();
    },
  };
}
