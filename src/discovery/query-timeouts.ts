/**
 * Statements that hit `sql.timeoutMs`, counted per stage of a run. A run with any is never `full`:
 * what those statements would have shown is missing, and the report and CLI summary say how many
 * timed out and where (docs/warehouses.md, "Cost follows the question").
 */
import type { ExplorationStep, Insight, MiningState, QueryTimeouts } from '../domain/index.js';
import { isQueryTimeout } from '../errors/index.js';

export function countQueryTimeouts(input: {
  steps: ReadonlyArray<Pick<ExplorationStep, 'action' | 'error'>>;
  mining?: Pick<MiningState, 'timed_out_queries'> | undefined;
  insights: ReadonlyArray<Pick<Insight, 'validation'>>;
}): QueryTimeouts {
  return {
    exploration: input.steps.filter((step) => step.action === 'query' && isQueryTimeout(step.error ?? '')).length,
    mining: input.mining?.timed_out_queries ?? 0,
    verification: input.insights.filter(
      (insight) => insight.validation?.status === 'error' && isQueryTimeout(insight.validation.reasoning ?? ''),
    ).length,
  };
}

export function totalQueryTimeouts(timeouts: QueryTimeouts | undefined): number {
  return timeouts === undefined ? 0 : timeouts.exploration + timeouts.mining + timeouts.verification;
}

/** "3 queries timed out (exploration 2, mining 1)", or undefined when none did. */
export function describeQueryTimeouts(timeouts: QueryTimeouts | undefined): string | undefined {
  const total = totalQueryTimeouts(timeouts);
  if (timeouts === undefined || total === 0) return undefined;
  const stages = (['exploration', 'mining', 'verification'] as const)
    .filter((stage) => timeouts[stage] > 0)
    .map((stage) => `${stage} ${timeouts[stage]}`)
    .join(', ');
  return `${total} ${total === 1 ? 'query' : 'queries'} timed out (${stages})`;
}
