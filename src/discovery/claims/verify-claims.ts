/**
 * Claims from anyone — a dashboard figure, another tool, a person — checked against a warehouse, as
 * `assay verify` and `POST /api/v1/projects/:id/verify` do it: the input read as one claim or a list of
 * claims (each validated against the claim schema, every problem named by its path), the warehouse's
 * tables described, each claim checked by `checkClaim`, and one verdict per claim in the shape both
 * print — status, reasoning, the recount (both values, the test, the support), the verifier's SQL and,
 * for an adjusted claim, the claim restated with the recounted numbers and its words.
 */
import { z } from 'zod';
import { type Claim, claimFitSchema, claimSchema, claimTestSchema } from '../../domain/index.js';
import { ValidationError, type ValidationIssue } from '../../errors/index.js';
import { discoverSchema } from '../../schema/schema-discovery.js';
import type { TableSchema, Warehouse } from '../../warehouse/port.js';
import { type ClaimCheckOutcome, checkClaim, recountedClaim } from './check-claim.js';
import { renderClaim } from './claim-text.js';

/** Claims one request may ask to check (each is one statement on the warehouse). */
export const MAX_CLAIMS_PER_REQUEST = 50;

export const CLAIM_VERDICT_STATUSES = ['confirmed', 'adjusted', 'rejected', 'unverified', 'error'] as const;
export type ClaimVerdictStatus = (typeof CLAIM_VERDICT_STATUSES)[number];

/** Weakest first: a list of claims is as good as its weakest verdict. */
const WEAKEST_FIRST: readonly ClaimVerdictStatus[] = ['error', 'rejected', 'unverified', 'adjusted', 'confirmed'];

export function weakestStatus(statuses: readonly ClaimVerdictStatus[]): ClaimVerdictStatus {
  return [...statuses].sort((left, right) => WEAKEST_FIRST.indexOf(left) - WEAKEST_FIRST.indexOf(right))[0] ?? 'confirmed';
}

export const claimVerificationSchema = z.object({
  status: z.enum(CLAIM_VERDICT_STATUSES),
  reasoning: z.string(),
  /** The claim as read, defaults filled in. */
  claim: claimSchema,
  /** What the verifier's own SQL counted; null when the claim could not be recounted. */
  recount: z
    .object({
      value: z.number().nullable(),
      comparison_value: z.number().nullable(),
      /** The kind's test recomputed from the recount (null: no test applies). */
      p_value: z.number().nullable(),
      test: claimTestSchema.optional(),
      /** Rows behind the value (periods of a trend, pairs of a correlation). */
      n: z.number().int().nonnegative(),
      comparison_n: z.number().int().nonnegative(),
      /** |recounted − claimed| / the larger of the two, on each side. */
      relative_error: z.number().nullable(),
      comparison_relative_error: z.number().nullable(),
      fit: claimFitSchema.optional(),
    })
    .nullable(),
  /** An adjusted claim restated with the recounted numbers, and the words it now says. */
  restated: z.object({ claim: claimSchema, title: z.string(), description: z.string() }).optional(),
  /** The verifier's statement (empty when none could be built). */
  sql: z.string(),
});
export type ClaimVerification = z.infer<typeof claimVerificationSchema>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ReadClaims {
  claims: Claim[];
  /** The input was a list (an array, or `{claims: [...]}`): answer with a list. */
  list: boolean;
}

/**
 * One claim (an object), a JSON array of claims, or `{claims: [...]}`, each parsed with the claim schema.
 * Problems are reported together, each at its path: `metric.kind` for one claim, `claims.2.metric.kind`
 * or `2.metric.kind` within a list.
 */
export function readClaims(raw: unknown, max = MAX_CLAIMS_PER_REQUEST): ReadClaims {
  const wrapped = isRecord(raw) && 'claims' in raw;
  const items = Array.isArray(raw) ? raw : wrapped ? raw.claims : [raw];
  const prefix = Array.isArray(raw) ? [] : wrapped ? ['claims'] : undefined;
  if (!Array.isArray(items))
    throw new ValidationError('"claims" must be an array of claims', [{ path: 'claims', message: 'expected an array of claims' }]);
  const where = prefix ? prefix.join('.') : '';
  if (items.length === 0)
    throw new ValidationError('no claim to check: the list is empty', [{ path: where, message: 'at least one claim' }]);
  if (items.length > max)
    throw new ValidationError(`${items.length} claims in one request: at most ${max}`, [{ path: where, message: `at most ${max} claims` }]);
  const claims: Claim[] = [];
  const issues: ValidationIssue[] = [];
  items.forEach((item, index) => {
    if (!isRecord(item)) {
      issues.push({ path: prefix ? [...prefix, index].join('.') : '', message: 'a claim is a JSON object' });
      return;
    }
    const parsed = claimSchema.safeParse(item);
    if (parsed.success) claims.push(parsed.data);
    else
      for (const issue of parsed.error.issues)
        issues.push({ path: [...(prefix ? [...prefix, index] : []), ...issue.path].map(String).join('.'), message: issue.message });
  });
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path || '(claim)'}: ${issue.message}`).join('; ');
    throw new ValidationError(`not a claim in the schema (docs/claims.md): ${summary}`, issues);
  }
  return { claims, list: prefix !== undefined };
}

/** The tables a claim may name, with their columns (no samples: a recount needs none). */
export async function describeClaimTables(warehouse: Warehouse, signal?: AbortSignal): Promise<TableSchema[]> {
  if (warehouse.describeCatalog) return (await warehouse.describeCatalog()).map((table) => ({ ...table, samples: [] }));
  return discoverSchema(warehouse, signal ? { signal } : {});
}

/** The verdict of one checked claim, in the shape `assay verify --json` and the API return. */
export function verificationOf(claim: Claim, outcome: ClaimCheckOutcome): ClaimVerification {
  const { recount, verdict } = outcome;
  const restated = outcome.status === 'adjusted' && recount ? recountedClaim(claim, recount) : undefined;
  const words = restated ? renderClaim(restated) : undefined;
  return {
    status: outcome.status,
    reasoning: outcome.reasoning,
    claim,
    recount: recount
      ? {
          value: recount.value,
          comparison_value: recount.comparisonValue,
          p_value: recount.test?.p_value ?? null,
          ...(outcome.check?.test ? { test: outcome.check.test } : {}),
          n: Math.max(0, Math.round(recount.segmentRows)),
          comparison_n: Math.max(0, Math.round(recount.comparisonRows)),
          relative_error: verdict?.relativeError ?? null,
          comparison_relative_error: verdict?.comparisonRelativeError ?? null,
          ...(recount.fit ? { fit: recount.fit } : {}),
        }
      : null,
    ...(restated && words ? { restated: { claim: restated, title: words.title, description: words.description } } : {}),
    sql: outcome.sql,
  };
}

export interface VerifyClaimsInput {
  warehouse: Warehouse;
  tables: readonly TableSchema[];
  claims: readonly Claim[];
  minSupport: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** Each claim checked in turn (one statement each), verdicts in the claims' order. */
export async function verifyClaims(input: VerifyClaimsInput): Promise<ClaimVerification[]> {
  const verdicts: ClaimVerification[] = [];
  for (const claim of input.claims) {
    const outcome = await checkClaim({
      warehouse: input.warehouse,
      tables: input.tables,
      claim,
      minSupport: input.minSupport,
      timeoutMs: input.timeoutMs,
      signal: input.signal,
      // a verdict carries no chart: the recount is all a caller of `assay verify` or the API asked for
      chart: false,
    });
    verdicts.push(verificationOf(claim, outcome));
  }
  return verdicts;
}
