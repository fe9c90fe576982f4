/** Request bodies of the HTTP API as zod schemas: the routes parse with them and the OpenAPI document is generated from them. */
import { z } from 'zod';
import { feedbackSchema, projectSchema, projectStateSchema, tenantFilterSchema } from '../domain/index.js';

/** Same bound as the config's run.maxSteps: a run this long already costs real money. */
export const MAX_STEPS_LIMIT = 500;
/** More areas than any shipped pack has; stops absurd bodies before the pack is read. */
const MAX_REQUESTED_AREAS = 100;

const areaIdsSchema = z
  .array(z.string().min(1))
  .min(1, 'give at least one area, or leave "areas" out for every area')
  .max(MAX_REQUESTED_AREAS);
const maxStepsSchema = z.number().int().min(1).max(MAX_STEPS_LIMIT);

export const createProjectBodySchema = z.strictObject({
  /** Chosen by the server from the name when left out. */
  id: projectSchema.shape.id.optional(),
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5_000).optional(),
  /** Domain pack slug. */
  domain: z.string().min(1),
  category: z.string().min(1).optional(),
  warehouse: z
    .strictObject({
      /** Must be the warehouse this server explores; credentials in it are never stored. */
      url: z.string().min(1).optional(),
      datasets: z.array(z.string().min(1)).optional(),
      filter: tenantFilterSchema.optional(),
    })
    .optional(),
  profile: z.record(z.string(), z.unknown()).optional(),
  /** Pack-generation wizard: the project starts in `pack_generation_pending` instead of `ready`. */
  generate_pack: z.strictObject({ enabled: z.boolean() }).optional(),
});
export type CreateProjectBody = z.infer<typeof createProjectBodySchema>;

export const updateProjectBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(5_000).optional(),
  /** null removes the category. */
  category: z.string().min(1).nullable().optional(),
  profile: z.record(z.string(), z.unknown()).optional(),
  state: projectStateSchema.optional(),
  warehouse: z
    .strictObject({
      datasets: z.array(z.string().min(1)).optional(),
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
  max_steps: maxStepsSchema.optional(),
  /** Default: the server's run.minSteps, capped at max_steps. */
  min_steps: z.number().int().min(0).max(MAX_STEPS_LIMIT).optional(),
});
export type DiscoverBody = z.infer<typeof discoverBodySchema>;

export const estimateBodySchema = discoverBodySchema.pick({ areas: true, max_steps: true });
export type EstimateBody = z.infer<typeof estimateBodySchema>;

export const feedbackBodySchema = z.strictObject({
  target_type: feedbackSchema.shape.target_type,
  /** An insight id, a recommendation id, or an exploration step number. */
  target_id: z.string().min(1).max(200),
  rating: feedbackSchema.shape.rating,
  comment: z.string().max(2_000).optional(),
});
export type FeedbackBody = z.infer<typeof feedbackBodySchema>;

/** `?limit=` of list endpoints. */
export const listQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });

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
