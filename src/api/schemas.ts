/**
 * Request bodies, query strings and the API's own response shapes as zod schemas: the routes parse
 * with them (src/api/routing.ts) and the OpenAPI document is generated from them.
 */
import { z } from 'zod';
import { claimVerificationSchema, MAX_CLAIMS_PER_REQUEST } from '../discovery/claims/verify-claims.js';
import {
  apiKeyRecordSchema,
  claimSchema,
  apiKeyScopeSchema,
  feedbackSchema,
  projectSchema,
  projectSecretsSchema,
  projectStateSchema,
  tenantFilterSchema,
} from '../domain/index.js';
import { STEP_LIMITS, type StepSetting, stepCountRule } from '../common/run-limits.js';
import { REPORT_LINK_DEFAULT_SECONDS, REPORT_LINK_MAX_SECONDS } from './auth/report-links.js';
/** More areas than any shipped pack has; stops absurd bodies before the pack is read. */
const MAX_REQUESTED_AREAS = 100;

const areaIdsSchema = z
  .array(z.string().min(1).max(100))
  .min(1, 'give at least one area, or leave "areas" out for every area')
  .max(MAX_REQUESTED_AREAS);
/** Datasets (schemas) a project explores. */
const datasetsSchema = z.array(z.string().min(1).max(200)).max(100);
/** Project profile: free-form context rendered into prompts, so bounded in size. */
export const MAX_PROFILE_BYTES = 16 * 1024;
const profileBodySchema = z
  .record(z.string().max(100), z.unknown())
  .refine((profile) => Buffer.byteLength(JSON.stringify(profile)) <= MAX_PROFILE_BYTES, `at most ${MAX_PROFILE_BYTES} bytes as JSON`);
/** `provider:model` (or `openai-compatible:URL#model`); checked against the allow-list when it names a URL. */
const modelSpecSchema = z.string().trim().min(1).max(500);
/** A step count, with the same bounds and words as `assay run --max-steps` (src/common/run-limits.ts). */
function stepCountSchema(setting: StepSetting) {
  const rule = stepCountRule(setting);
  return z.number({ error: rule }).int(rule).min(STEP_LIMITS[setting].min, rule).max(STEP_LIMITS[setting].max, rule);
}

export const createProjectBodySchema = z.strictObject({
  /** Chosen by the server from the name when left out. */
  id: projectSchema.shape.id.optional(),
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5_000).optional(),
  /**
   * A shipped pack's slug. Never a path (the server's files are not the caller's to name) nor a
   * `project:` reference (a project gets its own pack through pack-generate and pack-accept).
   */
  domain: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, "a shipped pack's slug (kebab-case), e.g. ecommerce or general"),
  category: z.string().min(1).max(100).optional(),
  warehouse: z
    .strictObject({
      /** The served warehouse when left out; any other must pass the allow-list and carry no password (use secrets.warehouse_password). */
      url: z.string().min(1).max(2_000).optional(),
      datasets: datasetsSchema.optional(),
      filter: tenantFilterSchema.optional(),
    })
    .optional(),
  profile: profileBodySchema.optional(),
  /** The project's models and embedder; the server's when left out. Setting any of these needs an admin key. */
  llm: modelSpecSchema.optional(),
  fast_llm: modelSpecSchema.optional(),
  embedder: modelSpecSchema.optional(),
  /** Credentials by reference (`secret:NAME`), resolved by the workers' secret provider. */
  secrets: projectSecretsSchema.optional(),
  /** Pack-generation wizard: the project starts in `pack_generation_pending` instead of `ready`. */
  generate_pack: z.strictObject({ enabled: z.boolean() }).optional(),
});
export type CreateProjectBody = z.infer<typeof createProjectBodySchema>;

export const updateProjectBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(5_000).optional(),
  /** null removes the category. */
  category: z.string().min(1).max(100).nullable().optional(),
  profile: profileBodySchema.optional(),
  state: projectStateSchema.optional(),
  /** Changing models, embedder, secrets or any warehouse setting needs an admin key. */
  llm: modelSpecSchema.optional(),
  /** null: the fast tier is the analysis model again. */
  fast_llm: modelSpecSchema.nullable().optional(),
  embedder: modelSpecSchema.optional(),
  /** Replaces the whole set of references. */
  secrets: projectSecretsSchema.optional(),
  warehouse: z
    .strictObject({
      url: z.string().min(1).max(2_000).optional(),
      datasets: datasetsSchema.optional(),
      /** null removes the tenant filter. */
      filter: tenantFilterSchema.nullable().optional(),
    })
    .optional(),
});
export type UpdateProjectBody = z.infer<typeof updateProjectBodySchema>;

export const discoverBodySchema = z.strictObject({
  /** Selective run: only these areas of the project's pack. Default: every area. */
  areas: areaIdsSchema.optional(),
  /** Default: the server's run.maxSteps. */
  max_steps: stepCountSchema('max_steps').optional(),
  /** Default: the server's run.minSteps, capped at max_steps. */
  min_steps: stepCountSchema('min_steps').optional(),
});
export type DiscoverBody = z.infer<typeof discoverBodySchema>;

export const estimateBodySchema = discoverBodySchema.pick({ areas: true, max_steps: true });
export type EstimateBody = z.infer<typeof estimateBodySchema>;

/** describe/goal of a pack generation: rendered into every prompt of the pack, so bounded. */
const packTeamTextSchema = z.string().trim().min(1).max(2_000);

export const packGenerateBodySchema = z.strictObject({
  /** What the data is, in the team's words ("IT incidents from our service desk since 2023"). */
  describe: packTeamTextSchema.optional(),
  /** What the team wants to learn ("which categories take longest to close"). */
  goal: packTeamTextSchema.optional(),
});
export type PackGenerateBody = z.infer<typeof packGenerateBodySchema>;

/** A pack document's paths: what a pack directory holds (`pack.json`, `prompts/<name>.md`). */
const packFilePathSchema = z.string().regex(/^(pack\.json|prompts\/[a-z][a-z0-9_]*\.md)$/, 'pack.json or prompts/<name>.md');
/** More prompt files than any pack needs (6 areas, categories, 3 base prompts). */
const MAX_PACK_FILES = 64;

export const packAcceptBodySchema = z.strictObject({
  /**
   * An edited pack (the draft's `files`, changed): frozen instead of the draft. Required on a `ready`
   * project, where it becomes the next version.
   */
  files: z
    .record(packFilePathSchema, z.string().max(200_000))
    .refine((files) => Object.keys(files).length <= MAX_PACK_FILES, `at most ${MAX_PACK_FILES} files`)
    .optional(),
});
export type PackAcceptBody = z.infer<typeof packAcceptBodySchema>;

export const feedbackBodySchema = z.strictObject({
  target_type: feedbackSchema.shape.target_type,
  /** An insight id, a recommendation id, or an exploration step number. */
  target_id: z.string().min(1).max(200),
  rating: feedbackSchema.shape.rating,
  comment: z.string().max(2_000).optional(),
});
export type FeedbackBody = z.infer<typeof feedbackBodySchema>;

export const createApiKeyBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scope: apiKeyScopeSchema,
  /** Bind the key to one project: it then sees only that project and its runs. */
  project_id: projectSchema.shape.id.optional(),
});
export type CreateApiKeyBody = z.infer<typeof createApiKeyBodySchema>;

/** An API key as listings show it (never its hash). */
export const apiKeyViewSchema = apiKeyRecordSchema.omit({ secret_hash: true });
/** A key just created: the only answer that carries the key itself. */
export const createdApiKeySchema = apiKeyViewSchema.extend({ key: z.string() });

/** `?expires_in=` of a report link: seconds it works. */
export const reportLinkQuerySchema = z.object({
  expires_in: z.coerce
    .number()
    .int()
    .min(60)
    .max(REPORT_LINK_MAX_SECONDS)
    .default(REPORT_LINK_DEFAULT_SECONDS)
    .describe(`seconds the link works (60-${REPORT_LINK_MAX_SECONDS}, default ${REPORT_LINK_DEFAULT_SECONDS})`),
});

/**
 * The query of a signed report link (GET /runs/:runId/report without a key). The auth middleware
 * checks it (auth/report-links.ts); this schema describes it for the OpenAPI document.
 */
export const reportLinkParamsSchema = z.object({
  key: z.string().optional().describe('report link: the id of the key that signed it'),
  expires: z.coerce.number().int().optional().describe('report link: expiry, Unix seconds'),
  signature: z.string().optional().describe('report link: HMAC of the key id, run id and expiry'),
});
/**
 * POST /projects/:id/verify: one claim (docs/claims.md), an array of claims or `{claims: [...]}`, at most
 * MAX_CLAIMS_PER_REQUEST. The route reads it with `readClaims`, which reports each problem at its path
 * (`metric.kind`, `claims.2.direction`); this schema describes the same body for the OpenAPI document.
 */
export const verifyBodySchema = z.union([
  claimSchema,
  z.array(claimSchema).min(1).max(MAX_CLAIMS_PER_REQUEST),
  z.object({ claims: z.array(claimSchema).min(1).max(MAX_CLAIMS_PER_REQUEST) }),
]);

/** `?limit=` of list endpoints. */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('at most this many, newest first (1-100, default 20)'),
});

/** The JSON body of every error response. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The answer of POST /projects/:id/verify: one verdict per claim, in the order sent. */
export const verdictsSchema = z.object({ verdicts: z.array(claimVerificationSchema) });

/** Tokens and cost of an estimate, in total and per kind of call. */
const tokenCostShape = {
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
  cache_read_tokens: z.number(),
  cache_write_tokens: z.number(),
  cost_usd_cached: z.number(),
};

/** The answer of POST /projects/:id/discover/estimate. */
export const estimateResponseSchema = z.looseObject({
  project_id: z.string(),
  pack: z.string(),
  areas: z.array(z.string()),
  max_steps: z.number().int(),
  catalog_tokens: z.number().int(),
  catalog_tokens_source: z.enum(['last_run', 'default']),
  /** `cost_usd` without prompt caching; `cost_usd_cached` with it, reading and writing `cache_*_tokens`. */
  llm: z.object({ model: z.string(), ...tokenCostShape }),
  breakdown: z.record(z.string(), z.object({ calls: z.number(), ...tokenCostShape })),
  assumptions: z.record(z.string(), z.union([z.number(), z.string()])),
});
