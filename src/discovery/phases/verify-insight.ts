/**
 * Phase 6, one insight: recount what the insight claims. A structured claim (metric, segment,
 * comparison, values, direction) is recounted on both sides with SQL the verifier builds itself and
 * judged on direction and magnitude. An insight without one only has its count recounted, grounded on
 * the SQL of the steps it cites, with a small lookup_schema loop — and its reasoning says the effect
 * was not checked. Writes only the validation block: the claimed values are never overwritten.
 */
import type { Claim, ExplorationStep, Insight, InsightValidation, Run } from '../../domain/index.js';
import { CancelledError, NotFoundError, UnsafeSqlError, WarehouseError, describeError } from '../../errors/index.js';
import type { PromptSection } from '../../llm/prompt-builder.js';
import { createSchemaBudget } from '../../schema/budget.js';
import { MAX_LOOKUPS_PER_VERIFICATION } from '../../schema/constants.js';
import { lookupSchema } from '../../schema/lookup.js';
import type { QueryResult } from '../../warehouse/port.js';
import { VERIFIER_ACTIONS, parseAction, reformatNudge } from '../parsing/action-parser.js';
import { assertRunActive, modelFor, requireProject, type DiscoveryDeps } from '../context.js';
import { buildClaimSql } from '../claims/claim-sql.js';
import { judgeClaim } from '../claims/claim-verdict.js';
import { askLlm } from '../llm-gateway.js';
import { loadEnginePrompt } from '../packs/pack-loader.js';
import { dialectName, filterRule } from '../packs/prompt-assembly.js';
import { rethrowUnlessFinal } from '../pipeline/error-policy.js';
import { classifyVerification } from '../rules.js';
import { loadRunSchema, loadRunSetting } from './run-setting.js';
import { createSqlFixer } from '../sql/sql-fix-prompt.js';
import { executeWithFixes } from '../sql/sql-executor.js';
import { renderTemplate } from '../packs/template.js';
import { timedPhase, timedSql, updateRunTimed } from './phase-timing.js';

const VERIFICATION_VARIABLES = ['INSIGHT', 'SOURCE_QUERIES', 'SCHEMA_INFO', 'DIALECT', 'LOOKUP_BUDGET', 'FILTER_RULE'];
/** Output budget of one verification turn: one statement or one lookup. */
const VERIFICATION_MAX_OUTPUT_TOKENS = 2_000;

/** The cited steps' executed SQL, the verifier's priority-1 column evidence. */
export function renderSourceQueries(insight: Pick<Insight, 'source_steps'>, steps: readonly ExplorationStep[]): string {
  const cited = steps.filter((step) => insight.source_steps.includes(step.step) && step.action === 'query' && !step.error);
  if (cited.length === 0) return '(the finding cites no successful query; use the catalog and look tables up)';
  return cited
    .map(
      (step) =>
        `Step ${step.step} — ${step.query_purpose || 'no purpose given'} (${step.row_count ?? 0} rows):\n\`\`\`sql\n${step.executed_query ?? step.query ?? ''}\n\`\`\``,
    )
    .join('\n\n');
}

/** The count a verification query returned: the `count` column, else the first finite number ≥ 0 in the first row. */
export function extractCount(result: Pick<QueryResult, 'rows' | 'columns'>): number | null {
  const row = result.rows[0];
  if (!row) return null;
  const countColumn = result.columns.find((column) => column.name.toLowerCase() === 'count');
  const candidates = countColumn ? [row[countColumn.name]] : Object.values(row);
  for (const value of candidates) {
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && Number.isFinite(number) && number >= 0) return number;
  }
  return null;
}

function insightForPrompt(insight: Insight): string {
  const { validation: _validation, discovered_at: _discovered, ...rest } = insight;
  return JSON.stringify(rest, null, 2);
}

function findInsight(run: Run, insightId: string): Insight {
  for (const area of run.areas) {
    const insight = area.insights.find((candidate) => candidate.id === insightId);
    if (insight) return insight;
  }
  throw new NotFoundError(`run ${run.id} has no insight "${insightId}"`, { runId: run.id, insightId });
}

/** The verification's one write: the validation, with the phase's timings in the same update. */
async function storeValidation(deps: DiscoveryDeps, runId: string, insightId: string, validation: InsightValidation): Promise<void> {
  await updateRunTimed(deps, runId, (run) => ({
    ...run,
    areas: run.areas.map((area) => ({
      ...area,
      insights: area.insights.map((insight) => (insight.id === insightId ? { ...insight, validation } : insight)),
    })),
  }));
}

/**
 * A structured claim is recounted with SQL the verifier builds itself (both sides of the comparison),
 * and judged on direction and magnitude; no model is asked.
 */
async function recountClaim(deps: DiscoveryDeps, run: Run, claim: Claim, at: string, signal?: AbortSignal): Promise<InsightValidation> {
  const project = await requireProject(deps, run.project_id);
  const { schema } = await loadRunSchema(deps, run, project, signal);
  const base = { original_count: claim.value, validated_at: at, lookups_used: 0 };
  const built = buildClaimSql(claim, schema.tables);
  if (!built.ok)
    return { ...base, status: 'rejected', verified_count: null, query: '', reasoning: `the claim cannot be recounted: ${built.reason}` };
  let row: Record<string, unknown> | undefined;
  try {
    row = (
      await timedSql(() =>
        deps.warehouse.query(built.sql, { maxRows: 1, timeoutMs: deps.config.sql.timeoutMs, ...(signal ? { signal } : {}) }),
      )
    ).rows[0];
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    if (!(error instanceof WarehouseError || error instanceof UnsafeSqlError)) throw error;
    return {
      ...base,
      status: 'error',
      verified_count: null,
      query: built.sql,
      reasoning: `the recount query failed: ${describeError(error)}`,
    };
  }
  const number = (value: unknown): number | null => {
    const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : typeof value === 'bigint' ? Number(value) : value;
    return typeof parsed === 'number' && Number.isFinite(parsed) ? parsed : null;
  };
  const recount = {
    segmentValue: number(row?.segment_value),
    comparisonValue: number(row?.comparison_value),
    segmentRows: number(row?.segment_rows) ?? 0,
  };
  const verdict = judgeClaim(claim, recount);
  return {
    ...base,
    status: verdict.status,
    verified_count: recount.segmentValue,
    query: built.sql,
    reasoning: verdict.reasoning,
    claim_check: {
      value: recount.segmentValue,
      comparison_value: recount.comparisonValue,
      direction_holds: verdict.directionHolds,
      relative_error: verdict.relativeError,
      segment_rows: recount.segmentRows,
      sql: built.sql,
    },
  };
}

async function verifyInsightUntimed(
  deps: DiscoveryDeps,
  runId: string,
  insightId: string,
  signal?: AbortSignal,
): Promise<InsightValidation> {
  const run = await assertRunActive(deps, runId, signal);
  const insight = findInsight(run, insightId);
  if (insight.validation) return insight.validation;
  const now = () => deps.now().toISOString();
  if (insight.claim) {
    const validation = await recountClaim(deps, run, insight.claim, now(), signal);
    await storeValidation(deps, runId, insightId, validation);
    return validation;
  }
  const claimed = insight.affected_count;
  const base = { original_count: claimed, validated_at: now(), lookups_used: 0 };

  if (claimed === null || claimed <= 0) {
    const outcome = classifyVerification(claimed, null);
    const validation: InsightValidation = {
      ...base,
      status: outcome.status,
      verified_count: null,
      query: '',
      reasoning: outcome.reasoning,
    };
    await storeValidation(deps, runId, insightId, validation);
    return validation;
  }

  const project = await requireProject(deps, run.project_id);
  const setting = await loadRunSetting(deps, run, project, signal);
  const steps = await deps.store.listSteps(runId);
  const sourceQueries = renderSourceQueries(insight, steps);
  const render = (lookupsLeft: number) =>
    renderTemplate(
      loadEnginePrompt('verification', VERIFICATION_VARIABLES),
      {
        INSIGHT: insightForPrompt(insight),
        SOURCE_QUERIES: sourceQueries,
        SCHEMA_INFO: setting.schema.catalog.text,
        DIALECT: dialectName(deps.warehouse.dialect),
        LOOKUP_BUDGET: String(lookupsLeft),
        FILTER_RULE: filterRule(project),
      },
      { file: 'src/discovery/prompts/verification.md', allowed: VERIFICATION_VARIABLES },
    );

  // priority: the source queries and the finding stay; the catalog is supplementary and shrinks first
  const sections: PromptSection[] = [
    { id: 'verification', role: 'user', text: render(MAX_LOOKUPS_PER_VERIFICATION), priority: 100, shrink: 'truncate', minTokens: 400 },
  ];
  let budget = createSchemaBudget();
  let lookups = 0;
  let sql: string | undefined;
  let lastProblem = '';
  // MAX_LOOKUPS_PER_VERIFICATION lookup rounds, then one forced final round that is not counted
  for (let round = 0; round <= MAX_LOOKUPS_PER_VERIFICATION && sql === undefined; round++) {
    const forced = lookups >= MAX_LOOKUPS_PER_VERIFICATION;
    let reply: string;
    try {
      reply = (
        await askLlm(deps, {
          runId,
          ...modelFor(deps, 'verification'),
          phase: 'verification',
          sections,
          maxOutputTokens: VERIFICATION_MAX_OUTPUT_TOKENS,
          signal,
          area: insight.analysis_area,
        })
      ).text;
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      rethrowUnlessFinal(error);
      lastProblem = `the model call failed: ${describeError(error)}`;
      break;
    }
    const parsed = parseAction(reply, VERIFIER_ACTIONS);
    sections.push({
      id: `reply-${round}`,
      role: 'assistant',
      text: reply.slice(0, 2_000) || '(empty reply)',
      priority: 70,
      shrink: 'truncate',
      minTokens: 32,
    });
    if (parsed.ok && parsed.action.type === 'query') {
      sql = parsed.action.query;
    } else if (parsed.ok && parsed.action.type === 'lookup_schema' && !forced) {
      const result = lookupSchema(parsed.action.tables, {
        tables: setting.schema.tables,
        budget,
        maxLookups: MAX_LOOKUPS_PER_VERIFICATION,
      });
      budget = result.budget;
      lookups++;
      const left = MAX_LOOKUPS_PER_VERIFICATION - lookups;
      sections.push({
        id: `lookup-${round}`,
        role: 'user',
        text: `${result.text}\n\n${left > 0 ? `Lookups left: ${left}.` : 'No lookups left: reply now with your query.'}`,
        priority: 80,
        shrink: 'truncate',
        minTokens: 64,
      });
    } else {
      lastProblem = parsed.ok ? 'a lookup after the lookup budget was spent' : parsed.reason;
      sections.push({
        id: `nudge-${round}`,
        role: 'user',
        text: forced ? `No lookups left. ${reformatNudge(lastProblem, new Set(['query']))}` : reformatNudge(lastProblem, VERIFIER_ACTIONS),
        priority: 90,
        shrink: 'none',
      });
    }
  }

  let validation: InsightValidation;
  if (sql === undefined) {
    validation = {
      ...base,
      lookups_used: lookups,
      status: 'error',
      verified_count: null,
      query: '',
      reasoning: `no verification query was produced: ${lastProblem || 'the model kept asking for lookups'}`,
    };
  } else {
    const outcome = await executeWithFixes({
      warehouse: deps.warehouse,
      sql,
      fix: createSqlFixer(deps, {
        runId,
        tables: setting.schema.tables,
        area: insight.analysis_area,
        phase: 'verification',
        verificationContext: sourceQueries,
        signal,
      }),
      queryOptions: { maxRows: 10, timeoutMs: deps.config.sql.timeoutMs, ...(signal ? { signal } : {}) },
    });
    const verified = outcome.result ? extractCount(outcome.result) : null;
    const classified = classifyVerification(claimed, verified, outcome.result ? undefined : outcome.error);
    // without a claim only the segment's size was recounted: say so, so no reader takes it for a checked effect
    const scope =
      classified.status === 'confirmed' || classified.status === 'adjusted'
        ? ' (segment size only: the insight stated no claim, so its effect was not recounted)'
        : '';
    validation = {
      ...base,
      lookups_used: lookups,
      status: classified.status,
      verified_count: verified,
      query: outcome.executedSql,
      reasoning: `${classified.reasoning}${scope}`,
    };
  }
  await storeValidation(deps, runId, insightId, validation);
  return validation;
}

/** verifyInsight, with its wall time added to `telemetry.phase_durations_ms.verification`. */
export const verifyInsight = timedPhase('verification', verifyInsightUntimed);
