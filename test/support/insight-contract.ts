/**
 * The output contract of insights (docs/api.md, "Insights"): what `assay run --json`, `assay eval
 * --json` and the API's result must carry for each insight. One check, used by a test per surface,
 * that fails when a field goes missing from any of them.
 */
import { expect } from 'vitest';

const STATUSES = ['confirmed', 'adjusted', 'rejected', 'unverified', 'error', 'skipped'];
const RECOUNT_FIELDS = ['value', 'comparison_value', 'p_value', 'n', 'comparison_n'] as const;

const numberOrNull = (value: unknown) => value === null || (typeof value === 'number' && Number.isFinite(value));

/**
 * Every insight carries `validation` with a known `status` and its `reasoning`; every confirmed or
 * adjusted one carries its `claim` and `validation.recount` with both values, the p-value and n on
 * each side (each a number or null, never left out). Returns how many insights had a recount; a
 * surface whose insights all lack one fails here, so the check cannot pass on empty lists.
 */
export function expectInsightContract(insights: unknown, where: string): number {
  expect(Array.isArray(insights), `${where}: insights is a list`).toBe(true);
  const list = insights as Array<Record<string, any>>;
  expect(list.length, `${where}: at least one insight`).toBeGreaterThan(0);
  let recounted = 0;
  for (const insight of list) {
    const label = `${where}: insight ${String(insight.id)}`;
    expect(typeof insight.name, `${label} name`).toBe('string');
    expect(insight.validation, `${label} validation`).toBeTypeOf('object');
    expect(STATUSES, `${label} validation.status`).toContain(insight.validation?.status);
    expect(typeof insight.validation?.reasoning, `${label} validation.reasoning`).toBe('string');
    if (insight.validation?.recount !== undefined) {
      recounted += 1;
      for (const field of RECOUNT_FIELDS) {
        expect(Object.hasOwn(insight.validation.recount, field), `${label} validation.recount.${field}`).toBe(true);
        expect(numberOrNull(insight.validation.recount[field]), `${label} validation.recount.${field} is a number or null`).toBe(true);
      }
    }
    if (insight.validation?.status === 'confirmed' || insight.validation?.status === 'adjusted') {
      expect(insight.claim, `${label} claim`).toBeTypeOf('object');
      expect(typeof insight.claim?.kind, `${label} claim.kind`).toBe('string');
      expect(insight.validation.recount, `${label} validation.recount`).toBeTypeOf('object');
      expect(insight.validation.reasoning.length, `${label} validation.reasoning is said`).toBeGreaterThan(0);
      expect(insight.validation.recount?.n, `${label} validation.recount.n`).toBeGreaterThan(0);
      // a segment compared with the other rows or another group has rows on both sides
      const comparison = insight.claim?.comparison?.kind;
      if (insight.claim?.kind === 'difference' && (comparison === 'rest' || comparison === 'group'))
        expect(insight.validation.recount?.comparison_n, `${label} validation.recount.comparison_n`).toBeGreaterThan(0);
      if (insight.claim?.kind === 'trend' || insight.claim?.kind === 'correlation')
        expect(insight.validation.recount?.comparison_n, `${label} validation.recount.comparison_n`).toBeNull();
    }
  }
  expect(recounted, `${where}: some insight carries its recount`).toBeGreaterThan(0);
  return recounted;
}
