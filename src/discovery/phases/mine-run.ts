/**
 * The mining stage of a run, between exploration and analysis: the engine mines the warehouse with its
 * own SQL (src/discovery/mining), corrects the run's tests for multiple testing, ranks what passes and
 * assigns each finding to an analysis area. Idempotent: a run that already holds its mining result is
 * returned as it is, so a redelivered job spends nothing. A failure of mining never fails the run:
 * analysis then works from the exploration digests alone, and the run says why.
 */
import { failedMining, type MiningState, type Project, type Run } from '../../domain/index.js';
import { CancelledError, describeError } from '../../errors/index.js';
import { assertRunActive, requireProject, type DiscoveryDeps } from '../context.js';
import { assignAreas } from '../mining/area-assignment.js';
import { applyFeedback, feedbackSignals } from '../mining/feedback.js';
import { DEFAULT_MINING_SETTINGS, type MiningSettings, mineWarehouse } from '../mining/mine.js';
import { rethrowUnlessFinal } from '../pipeline/error-policy.js';
import { loadRunSchema } from './run-setting.js';
import { packVocabulary } from '../mining/pack-vocabulary.js';
import { timedPhase } from './phase-timing.js';

/** Earlier results read for the insights that feedback rates (newest first). */
const FEEDBACK_RESULTS_LIMIT = 20;

/** What the project says about its data: the goal, a description, and the noun for a row of each table. */
export interface ProjectBrief {
  goal: string;
  description: string;
  nouns: Record<string, string>;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

export function projectBrief(project: Pick<Project, 'description' | 'profile'>): ProjectBrief {
  const basic = (project.profile.basic_info ?? {}) as Record<string, unknown>;
  const nouns: Record<string, string> = {};
  const declared = basic.row_nouns;
  if (declared && typeof declared === 'object')
    for (const [table, noun] of Object.entries(declared as Record<string, unknown>)) if (text(noun) !== '') nouns[table] = text(noun);
  return {
    goal: text(basic.goal) || text(project.profile.goal),
    description: text(basic.description) || text(project.description),
    nouns,
  };
}

export function miningSettings(deps: Pick<DiscoveryDeps, 'config'>): MiningSettings {
  const mining = deps.config.mining;
  return {
    fdr: mining.fdr,
    minSupport: mining.minSupport,
    maxTables: mining.maxTables,
    maxFindings: DEFAULT_MINING_SETTINGS.maxFindings,
    budget: {
      maxQueries: mining.maxQueries,
      maxDurationMs: mining.maxDurationMs,
      queryTimeoutMs: deps.config.sql.timeoutMs,
      maxRows: DEFAULT_MINING_SETTINGS.budget.maxRows,
    },
  };
}

/** Mining statements named in the 'mining finished' log line, slowest first. */
const SLOWEST_LOGGED = 5;

async function mineRunUntimed(deps: DiscoveryDeps, runId: string, signal?: AbortSignal): Promise<MiningState> {
  const run: Run = await assertRunActive(deps, runId, signal);
  if (run.mining && run.mining.status !== 'failed') return run.mining;
  const started = Date.now();
  const settings = miningSettings(deps);
  let state: MiningState;
  try {
    const project = await requireProject(deps, run.project_id);
    const { schema, areas, pack } = await loadRunSchema(deps, run, project, signal);
    const brief = projectBrief(project);
    const vocabulary = packVocabulary(pack.mining, schema.tables);
    const outcome = await mineWarehouse({
      warehouse: deps.warehouse,
      embedder: deps.embedder,
      tables: schema.tables,
      goal: brief.goal,
      description: brief.description,
      nouns: { ...vocabulary.nouns, ...brief.nouns },
      labels: vocabulary.labels,
      outcomes: vocabulary.outcomes,
      better: vocabulary.better,
      settings,
      signal,
    });
    // what users said about earlier insights of this project re-weights the findings that share their claims
    const [feedback, results] = await Promise.all([
      deps.store.listFeedback(project.id),
      deps.store.listResults(project.id, { limit: FEEDBACK_RESULTS_LIMIT }),
    ]);
    const weighed = applyFeedback(
      outcome.findings,
      feedbackSignals(
        feedback,
        results.filter((result) => result.run_id !== runId),
      ),
    );
    const findings = await assignAreas(deps.embedder, weighed.findings, areas, signal);
    state = {
      status: 'completed',
      queries: outcome.queries.length,
      failed_queries: outcome.queries.filter((query) => query.error !== undefined).length,
      timed_out_queries: outcome.queries.filter((query) => query.timedOut).length,
      skipped_queries: outcome.skippedQueries,
      tables: outcome.tables,
      tested: outcome.tested,
      significant: outcome.significant,
      fdr: settings.fdr,
      findings,
      duration_ms: Date.now() - started,
      notes: [...outcome.notes, ...weighed.notes],
    };
    deps.logger.info(
      {
        runId,
        queries: state.queries,
        tested: state.tested,
        significant: state.significant,
        findings: findings.length,
        durationMs: state.duration_ms,
        // what spent the budget, for an operator whose warehouse mines slowly
        slowest: [...outcome.queries]
          .sort((left, right) => right.ms - left.ms)
          .slice(0, SLOWEST_LOGGED)
          .map((query) => `${query.label} (${query.ms} ms${query.error ? `, ${query.timedOut ? 'timed out' : 'failed'}` : ''})`),
      },
      'mining finished',
    );
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    rethrowUnlessFinal(error);
    deps.logger.error({ runId, err: error }, 'mining failed; analysis goes on from the exploration digests');
    state = failedMining({ fdr: settings.fdr, durationMs: Date.now() - started, error: describeError(error) });
  }
  await deps.store.updateRun(runId, (current) => ({ ...current, mining: state }));
  return state;
}

/** mineRun, with its wall time added to `telemetry.phase_durations_ms.mining`. */
export const mineRun = timedPhase('mining', mineRunUntimed);
