/**
 * Phase 6, one insight: recount what it claims, independently. The claim — and every supporting claim
 * — is recounted with the verifier's own SQL (claims/check-claim.ts), its test recomputed and judged;
 * the words are checked against the claim. The verdict is the weakest of them. An adjusted insight is
 * re-rendered from the recount (title and description), so no one sees the old numbers; an insight
 * with no claim is `unverified` and never counted or shown as confirmed. No model is asked.
 */
import type { Claim, Insight, InsightValidation, Run } from '../../domain/index.js';
import { NotFoundError } from '../../errors/index.js';
import { type ClaimCheckOutcome, checkClaim, recountedClaim } from '../claims/check-claim.js';
import { renderClaim } from '../claims/claim-text.js';
import { textDisagreements } from '../claims/text-check.js';
import { assertRunActive, requireProject, type DiscoveryDeps } from '../context.js';
import { loadRunSchema } from './run-setting.js';
import type { InsightVerdict } from '../pipeline/run-updates.js';
import { measuredPhase, timedSql } from './phase-timing.js';

/** Verdicts from weakest to strongest: the insight takes its weakest claim's. */
const VERDICT_ORDER = ['error', 'rejected', 'unverified', 'adjusted', 'confirmed'] as const;

function findInsight(run: Run, insightId: string): Insight {
  for (const area of run.areas) {
    const insight = area.insights.find((candidate) => candidate.id === insightId);
    if (insight) return insight;
  }
  throw new NotFoundError(`run ${run.id} has no insight "${insightId}"`, { runId: run.id, insightId });
}

function weakest(outcomes: readonly ClaimCheckOutcome[]): ClaimCheckOutcome {
  return [...outcomes].sort(
    (left, right) => VERDICT_ORDER.indexOf(left.status) - VERDICT_ORDER.indexOf(right.status),
  )[0] as ClaimCheckOutcome;
}

function unverified(insight: Insight, at: string): InsightValidation {
  return {
    status: 'unverified',
    verified_count: null,
    original_count: insight.affected_count,
    query: '',
    reasoning: 'the insight states no claim the warehouse can recount, so it is not verified and never counted as confirmed',
    validated_at: at,
    lookups_used: 0,
  };
}

/** A trend, a correlation and a share against an even split compare with no group of rows: their `comparison_n` is null. */
function hasComparisonRows(claim: Claim): boolean {
  return claim.kind !== 'trend' && claim.kind !== 'correlation' && claim.comparison?.kind !== 'even';
}

type Finding = Omit<InsightVerdict, 'durationsMs'>;

async function checkInsightUntimed(deps: DiscoveryDeps, runId: string, insightId: string, signal?: AbortSignal): Promise<Finding> {
  const run = await assertRunActive(deps, runId, signal);
  const insight = findInsight(run, insightId);
  // validated on an earlier delivery: storing the verdict again changes nothing
  if (insight.validation) return { insightId, validation: insight.validation };
  const at = deps.now().toISOString();
  if (!insight.claim) return { insightId, validation: unverified(insight, at) };
  const project = await requireProject(deps, run.project_id);
  const { schema } = await loadRunSchema(deps, run, project, signal);
  // only the insight's own claim is drawn: a supporting claim's chart would be computed and thrown away
  const check = (claim: Claim, chart: boolean) =>
    checkClaim({
      warehouse: deps.warehouse,
      tables: schema.tables,
      claim,
      minSupport: deps.config.mining.minSupport,
      timeoutMs: deps.config.sql.timeoutMs,
      signal,
      timed: timedSql,
      chart,
    });
  const main = await check(insight.claim, true);
  const supporting: ClaimCheckOutcome[] = [];
  for (const claim of insight.supporting_claims) supporting.push(await check(claim, false));

  let status = weakest([main, ...supporting]).status;
  const reasons = [main.reasoning, ...supporting.map((outcome, index) => `supporting claim ${index + 1}: ${outcome.reasoning}`)];
  const disagreements = textDisagreements(insight.claim, { name: insight.name, description: insight.description });
  if (disagreements.length > 0 && status !== 'error') {
    status = 'rejected';
    reasons.unshift(`the text disagrees with its claim: ${disagreements.join('; ')}`);
  }

  const recounted = main.recount ? recountedClaim(insight.claim, main.recount) : insight.claim;
  const supportingRecounted = insight.supporting_claims.map((claim, index) => {
    const outcome = supporting[index];
    return outcome?.recount ? recountedClaim(claim, outcome.recount) : claim;
  });
  const validation: InsightValidation = {
    status,
    verified_count: main.recount?.value ?? null,
    original_count: insight.claim.value,
    query: main.sql,
    reasoning: reasons.join(' | '),
    validated_at: at,
    lookups_used: 0,
    ...(main.check ? { claim_check: main.check } : {}),
    ...(main.recount
      ? {
          recount: {
            value: main.recount.value,
            comparison_value: main.recount.comparisonValue,
            p_value: main.recount.test?.p_value ?? null,
            n: Math.round(main.recount.segmentRows),
            comparison_n: hasComparisonRows(insight.claim) ? Math.max(0, Math.round(main.recount.comparisonRows)) : null,
          },
        }
      : {}),
  };
  if (status !== 'adjusted') return { insightId, validation };
  // no one sees the old numbers: the text and the claims become the recount's
  const text = renderClaim(recounted);
  const more = supportingRecounted.map((claim) => `${renderClaim(claim).title}.`);
  return {
    insightId,
    validation: { ...validation, text_rerendered: true, original_text: { name: insight.name, description: insight.description } },
    rewrite: {
      claim: recounted,
      supporting_claims: supportingRecounted,
      name: text.title,
      description: [text.description, ...more].join(' '),
      text_source: 'claim',
      affected_count: recounted.n?.segment ?? insight.affected_count,
    },
  };
}

/**
 * Checks one insight and returns its verdict without storing it, with the check's wall and warehouse
 * time: the driver collects the analysis stage's verdicts and the pipeline stores them in the stage's
 * one update (`settleVerifications`), so parallel verifications never race on the run document.
 */
export async function checkInsight(deps: DiscoveryDeps, runId: string, insightId: string, signal?: AbortSignal): Promise<InsightVerdict> {
  const { value, durationsMs } = await measuredPhase('verification', () => checkInsightUntimed(deps, runId, insightId, signal));
  return { ...value, durationsMs };
}
